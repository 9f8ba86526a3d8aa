CREATE TABLE `job_dependencies` (
	`job_id` text NOT NULL,
	`upstream_id` text NOT NULL,
	`on` text NOT NULL,
	PRIMARY KEY(`job_id`, `upstream_id`, `on`),
	FOREIGN KEY (`job_id`) REFERENCES `jobs`(`id`) ON UPDATE no action ON DELETE no action,
	CONSTRAINT "job_dependencies_on_check" CHECK("on" IN ('success', 'failure', 'always', 'all'))
);
--> statement-breakpoint
CREATE INDEX `job_dependencies_upstream_idx` ON `job_dependencies` (`upstream_id`);--> statement-breakpoint
CREATE TABLE `occurrences` (
	`job_id` text NOT NULL,
	`scheduled_for` integer NOT NULL,
	`wall` text DEFAULT '' NOT NULL,
	`outcome` text NOT NULL,
	`reason` text NOT NULL,
	`node` text NOT NULL,
	`decided_at` integer NOT NULL,
	PRIMARY KEY(`job_id`, `scheduled_for`, `wall`),
	FOREIGN KEY (`job_id`) REFERENCES `jobs`(`id`) ON UPDATE no action ON DELETE no action,
	CONSTRAINT "occurrences_outcome_check" CHECK(outcome IN ('ran', 'skipped-overlap', 'missed-while-down', 'outside-catchup-window', 'dst-skipped', 'paused', 'deduplicated'))
);
--> statement-breakpoint
CREATE INDEX `occurrences_decided_idx` ON `occurrences` (`decided_at`);--> statement-breakpoint
PRAGMA foreign_keys=OFF;--> statement-breakpoint
CREATE TABLE `__new_runs` (
	`id` text PRIMARY KEY NOT NULL,
	`job_id` text NOT NULL,
	`scheduled_for` integer NOT NULL,
	`attempt` integer NOT NULL,
	`trigger` text NOT NULL,
	`state` text NOT NULL,
	`node` text NOT NULL,
	`fence` integer NOT NULL,
	`created_at` integer NOT NULL,
	`started_at` integer,
	`finished_at` integer,
	`pid` integer,
	`exit_code` integer,
	`http_status` integer,
	`signal` text,
	`error` text,
	`stdout_tail` text DEFAULT '' NOT NULL,
	`stderr_tail` text DEFAULT '' NOT NULL,
	`response_headers` text,
	`retried_by` text,
	`due_at` integer NOT NULL,
	FOREIGN KEY (`job_id`) REFERENCES `jobs`(`id`) ON UPDATE no action ON DELETE no action,
	CONSTRAINT "runs_state_check" CHECK(state IN ('scheduled', 'running', 'succeeded', 'failed', 'timed_out', 'cancelled', 'lost')),
	CONSTRAINT "runs_trigger_check" CHECK("trigger" IN ('schedule', 'manual', 'retry', 'catchup', 'backfill', 'dependency'))
);
--> statement-breakpoint
INSERT INTO `__new_runs`("id", "job_id", "scheduled_for", "attempt", "trigger", "state", "node", "fence", "created_at", "started_at", "finished_at", "pid", "exit_code", "http_status", "signal", "error", "stdout_tail", "stderr_tail", "response_headers", "retried_by", "due_at") SELECT "id", "job_id", "scheduled_for", "attempt", "trigger", "state", "node", "fence", "created_at", "started_at", "finished_at", "pid", "exit_code", "http_status", "signal", "error", "stdout_tail", "stderr_tail", "response_headers", "retried_by", "due_at" FROM `runs`;--> statement-breakpoint
DROP TABLE `runs`;--> statement-breakpoint
ALTER TABLE `__new_runs` RENAME TO `runs`;--> statement-breakpoint
PRAGMA foreign_keys=ON;--> statement-breakpoint
CREATE UNIQUE INDEX `runs_instant_unique` ON `runs` (`job_id`,`scheduled_for`,`attempt`);--> statement-breakpoint
CREATE INDEX `runs_job_history_idx` ON `runs` (`job_id`,`id`);--> statement-breakpoint
CREATE INDEX `runs_unfinished_idx` ON `runs` (`state`) WHERE state IN ('scheduled', 'running');--> statement-breakpoint
CREATE INDEX `runs_finished_idx` ON `runs` (`finished_at`) WHERE finished_at IS NOT NULL;--> statement-breakpoint
CREATE INDEX `runs_waiting_due_idx` ON `runs` (`due_at`,`id`) WHERE state = 'scheduled';