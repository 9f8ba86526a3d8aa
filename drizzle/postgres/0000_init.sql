CREATE TABLE "audit_log" (
	"id" text COLLATE "C" PRIMARY KEY NOT NULL,
	"at" bigint NOT NULL,
	"actor" text NOT NULL,
	"action" text NOT NULL,
	"job_id" text COLLATE "C",
	"before" text,
	"after" text
);
--> statement-breakpoint
CREATE TABLE "idempotency_keys" (
	"key" text PRIMARY KEY NOT NULL,
	"method" text NOT NULL,
	"fingerprint" text NOT NULL,
	"response" text NOT NULL,
	"created_at" bigint NOT NULL
);
--> statement-breakpoint
CREATE TABLE "jobs" (
	"id" text COLLATE "C" PRIMARY KEY NOT NULL,
	"name" text NOT NULL,
	"state" text NOT NULL,
	"definition" text NOT NULL,
	"labels" jsonb NOT NULL,
	"owner" text NOT NULL,
	"version" integer NOT NULL,
	"created_at" bigint NOT NULL,
	"updated_at" bigint NOT NULL,
	"deleted_at" bigint,
	"next_run_at" bigint,
	CONSTRAINT "jobs_state_check" CHECK (state IN ('active', 'paused', 'cancelled')),
	CONSTRAINT "jobs_cancelled_is_deleted_check" CHECK ((state = 'cancelled') = (deleted_at IS NOT NULL))
);
--> statement-breakpoint
CREATE TABLE "meta" (
	"key" text PRIMARY KEY NOT NULL,
	"value" text NOT NULL
);
--> statement-breakpoint
CREATE TABLE "runs" (
	"id" text COLLATE "C" PRIMARY KEY NOT NULL,
	"job_id" text COLLATE "C" NOT NULL,
	"scheduled_for" bigint NOT NULL,
	"attempt" integer NOT NULL,
	"trigger" text NOT NULL,
	"state" text NOT NULL,
	"node" text NOT NULL,
	"fence" bigint NOT NULL,
	"created_at" bigint NOT NULL,
	"started_at" bigint,
	"finished_at" bigint,
	"pid" integer,
	"exit_code" integer,
	"http_status" integer,
	"signal" text,
	"error" text,
	"stdout_tail" "bytea" DEFAULT ''::bytea NOT NULL,
	"stderr_tail" "bytea" DEFAULT ''::bytea NOT NULL,
	"response_headers" text,
	"retried_by" text COLLATE "C",
	"due_at" bigint NOT NULL,
	CONSTRAINT "runs_state_check" CHECK (state IN ('scheduled', 'running', 'succeeded', 'failed', 'timed_out', 'cancelled', 'lost')),
	CONSTRAINT "runs_trigger_check" CHECK ("trigger" IN ('schedule', 'manual', 'retry'))
);
--> statement-breakpoint
ALTER TABLE "runs" ADD CONSTRAINT "runs_job_id_jobs_id_fk" FOREIGN KEY ("job_id") REFERENCES "public"."jobs"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "audit_log_job_idx" ON "audit_log" USING btree ("job_id","id");--> statement-breakpoint
CREATE INDEX "idempotency_keys_created_idx" ON "idempotency_keys" USING btree ("created_at");--> statement-breakpoint
CREATE UNIQUE INDEX "jobs_live_name_unique" ON "jobs" USING btree ("name") WHERE deleted_at IS NULL;--> statement-breakpoint
CREATE INDEX "jobs_name_idx" ON "jobs" USING btree ("name","id");--> statement-breakpoint
CREATE INDEX "jobs_due_idx" ON "jobs" USING btree ("next_run_at","id") WHERE state = 'active' AND deleted_at IS NULL AND next_run_at IS NOT NULL;--> statement-breakpoint
CREATE UNIQUE INDEX "runs_instant_unique" ON "runs" USING btree ("job_id","scheduled_for","attempt");--> statement-breakpoint
CREATE INDEX "runs_job_history_idx" ON "runs" USING btree ("job_id","id");--> statement-breakpoint
CREATE INDEX "runs_unfinished_idx" ON "runs" USING btree ("state") WHERE state IN ('scheduled', 'running');--> statement-breakpoint
CREATE INDEX "runs_finished_idx" ON "runs" USING btree ("finished_at") WHERE finished_at IS NOT NULL;--> statement-breakpoint
CREATE INDEX "runs_waiting_due_idx" ON "runs" USING btree ("due_at","id") WHERE state = 'scheduled';