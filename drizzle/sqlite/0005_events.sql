CREATE TABLE `events` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`type` text NOT NULL,
	`node` text NOT NULL,
	`at` integer NOT NULL,
	`job_id` text NOT NULL,
	`run_id` text,
	`data` text NOT NULL
);
--> statement-breakpoint
CREATE INDEX `events_run_idx` ON `events` (`run_id`,`id`);