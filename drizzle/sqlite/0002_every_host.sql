DROP INDEX `runs_instant_unique`;--> statement-breakpoint
ALTER TABLE `runs` ADD `host` text DEFAULT '' NOT NULL;--> statement-breakpoint
CREATE UNIQUE INDEX `runs_instant_unique` ON `runs` (`job_id`,`scheduled_for`,`attempt`,`host`);