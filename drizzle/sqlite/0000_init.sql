CREATE TABLE `audit_log` (
	`id` text PRIMARY KEY NOT NULL,
	`at` integer NOT NULL,
	`actor` text NOT NULL,
	`action` text NOT NULL,
	`job_id` text,
	`before` text,
	`after` text
);
--> statement-breakpoint
CREATE INDEX `audit_log_job_idx` ON `audit_log` (`job_id`,`id`);--> statement-breakpoint
CREATE TABLE `idempotency_keys` (
	`key` text PRIMARY KEY NOT NULL,
	`method` text NOT NULL,
	`fingerprint` text NOT NULL,
	`response` text NOT NULL,
	`created_at` integer NOT NULL
);
--> statement-breakpoint
CREATE INDEX `idempotency_keys_created_idx` ON `idempotency_keys` (`created_at`);--> statement-breakpoint
CREATE TABLE `jobs` (
	`id` text PRIMARY KEY NOT NULL,
	`name` text NOT NULL,
	`state` text NOT NULL,
	`definition` text NOT NULL,
	`labels` text NOT NULL,
	`owner` text NOT NULL,
	`version` integer NOT NULL,
	`created_at` integer NOT NULL,
	`updated_at` integer NOT NULL,
	`deleted_at` integer,
	`next_run_at` integer,
	CONSTRAINT "jobs_state_check" CHECK(state IN ('active', 'paused', 'cancelled')),
	CONSTRAINT "jobs_cancelled_is_deleted_check" CHECK((state = 'cancelled') = (deleted_at IS NOT NULL))
);
--> statement-breakpoint
CREATE UNIQUE INDEX `jobs_live_name_unique` ON `jobs` (`name`) WHERE deleted_at IS NULL;--> statement-breakpoint
CREATE INDEX `jobs_name_idx` ON `jobs` (`name`,`id`);--> statement-breakpoint
CREATE INDEX `jobs_due_idx` ON `jobs` (`next_run_at`,`id`) WHERE state = 'active' AND deleted_at IS NULL AND next_run_at IS NOT NULL;--> statement-breakpoint
CREATE TABLE `meta` (
	`key` text PRIMARY KEY NOT NULL,
	`value` text NOT NULL
);
--> statement-breakpoint
CREATE TABLE `runs` (
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
	CONSTRAINT "runs_trigger_check" CHECK("trigger" IN ('schedule', 'manual', 'retry'))
);
--> statement-breakpoint
CREATE UNIQUE INDEX `runs_instant_unique` ON `runs` (`job_id`,`scheduled_for`,`attempt`);--> statement-breakpoint
CREATE INDEX `runs_job_history_idx` ON `runs` (`job_id`,`id`);--> statement-breakpoint
CREATE INDEX `runs_unfinished_idx` ON `runs` (`state`) WHERE state IN ('scheduled', 'running');--> statement-breakpoint
CREATE INDEX `runs_finished_idx` ON `runs` (`finished_at`) WHERE finished_at IS NOT NULL;--> statement-breakpoint
CREATE INDEX `runs_waiting_due_idx` ON `runs` (`due_at`,`id`) WHERE state = 'scheduled';