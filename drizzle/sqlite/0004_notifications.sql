CREATE TABLE `deliveries` (
	`id` text PRIMARY KEY NOT NULL,
	`job_id` text NOT NULL,
	`run_id` text,
	`kind` text NOT NULL,
	`target` text NOT NULL,
	`dedup_key` text NOT NULL,
	`state` text NOT NULL,
	`attempts` integer DEFAULT 0 NOT NULL,
	`due_at` integer NOT NULL,
	`created_at` integer NOT NULL,
	`finished_at` integer,
	`answer` text,
	`last_error` text,
	`detail` text DEFAULT '' NOT NULL,
	CONSTRAINT "deliveries_state_check" CHECK(state IN ('pending', 'delivered', 'failed', 'suppressed')),
	CONSTRAINT "deliveries_kind_check" CHECK(kind IN ('failure', 'dead', 'recovered', 'success', 'overdue', 'summary'))
);
--> statement-breakpoint
CREATE UNIQUE INDEX `deliveries_dedup_unique` ON `deliveries` (`dedup_key`);--> statement-breakpoint
CREATE INDEX `deliveries_job_idx` ON `deliveries` (`job_id`,`id`);--> statement-breakpoint
CREATE INDEX `deliveries_pending_idx` ON `deliveries` (`due_at`,`id`) WHERE state = 'pending';--> statement-breakpoint
CREATE TABLE `overdue_jobs` (
	`job_id` text PRIMARY KEY NOT NULL,
	`since` integer NOT NULL
);
--> statement-breakpoint
PRAGMA foreign_keys=OFF;--> statement-breakpoint
CREATE TABLE `__new_occurrences` (
	`job_id` text NOT NULL,
	`scheduled_for` integer NOT NULL,
	`wall` text DEFAULT '' NOT NULL,
	`outcome` text NOT NULL,
	`reason` text NOT NULL,
	`node` text NOT NULL,
	`decided_at` integer NOT NULL,
	PRIMARY KEY(`job_id`, `scheduled_for`, `wall`),
	FOREIGN KEY (`job_id`) REFERENCES `jobs`(`id`) ON UPDATE no action ON DELETE no action,
	CONSTRAINT "occurrences_outcome_check" CHECK(outcome IN ('ran', 'skipped-overlap', 'missed-while-down', 'outside-catchup-window', 'dst-skipped', 'paused', 'deduplicated', 'overdue'))
);
--> statement-breakpoint
INSERT INTO `__new_occurrences`("job_id", "scheduled_for", "wall", "outcome", "reason", "node", "decided_at") SELECT "job_id", "scheduled_for", "wall", "outcome", "reason", "node", "decided_at" FROM `occurrences`;--> statement-breakpoint
DROP TABLE `occurrences`;--> statement-breakpoint
ALTER TABLE `__new_occurrences` RENAME TO `occurrences`;--> statement-breakpoint
PRAGMA foreign_keys=ON;--> statement-breakpoint
CREATE INDEX `occurrences_decided_idx` ON `occurrences` (`decided_at`);--> statement-breakpoint
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
	`stdout_bytes` integer,
	`stderr_bytes` integer,
	`response_headers` text,
	`retried_by` text,
	`due_at` integer NOT NULL,
	`host` text DEFAULT '' NOT NULL,
	FOREIGN KEY (`job_id`) REFERENCES `jobs`(`id`) ON UPDATE no action ON DELETE no action,
	CONSTRAINT "runs_state_check" CHECK(state IN ('scheduled', 'running', 'succeeded', 'failed', 'timed_out', 'cancelled', 'lost')),
	CONSTRAINT "runs_trigger_check" CHECK("trigger" IN ('schedule', 'manual', 'retry', 'catchup', 'backfill', 'dependency', 'ping'))
);
--> statement-breakpoint
INSERT INTO `__new_runs`("id", "job_id", "scheduled_for", "attempt", "trigger", "state", "node", "fence", "created_at", "started_at", "finished_at", "pid", "exit_code", "http_status", "signal", "error", "stdout_tail", "stderr_tail", "stdout_bytes", "stderr_bytes", "response_headers", "retried_by", "due_at", "host") SELECT "id", "job_id", "scheduled_for", "attempt", "trigger", "state", "node", "fence", "created_at", "started_at", "finished_at", "pid", "exit_code", "http_status", "signal", "error", "stdout_tail", "stderr_tail", "stdout_bytes", "stderr_bytes", "response_headers", "retried_by", "due_at", "host" FROM `runs`;--> statement-breakpoint
DROP TABLE `runs`;--> statement-breakpoint
ALTER TABLE `__new_runs` RENAME TO `runs`;--> statement-breakpoint
CREATE UNIQUE INDEX `runs_instant_unique` ON `runs` (`job_id`,`scheduled_for`,`attempt`,`host`);--> statement-breakpoint
CREATE INDEX `runs_job_history_idx` ON `runs` (`job_id`,`id`);--> statement-breakpoint
CREATE INDEX `runs_unfinished_idx` ON `runs` (`state`) WHERE state IN ('scheduled', 'running');--> statement-breakpoint
CREATE INDEX `runs_finished_idx` ON `runs` (`finished_at`) WHERE finished_at IS NOT NULL;--> statement-breakpoint
CREATE INDEX `runs_waiting_due_idx` ON `runs` (`due_at`,`id`) WHERE state = 'scheduled';