CREATE TABLE "deliveries" (
	"id" text COLLATE "C" PRIMARY KEY NOT NULL,
	"job_id" text COLLATE "C" NOT NULL,
	"run_id" text COLLATE "C",
	"kind" text NOT NULL,
	"target" text NOT NULL,
	"dedup_key" text NOT NULL,
	"state" text NOT NULL,
	"attempts" integer DEFAULT 0 NOT NULL,
	"due_at" bigint NOT NULL,
	"created_at" bigint NOT NULL,
	"finished_at" bigint,
	"answer" text,
	"last_error" text,
	"detail" text DEFAULT '' NOT NULL,
	CONSTRAINT "deliveries_state_check" CHECK (state IN ('pending', 'delivered', 'failed', 'suppressed')),
	CONSTRAINT "deliveries_kind_check" CHECK (kind IN ('failure', 'dead', 'recovered', 'success', 'overdue', 'summary'))
);
--> statement-breakpoint
CREATE TABLE "overdue_jobs" (
	"job_id" text COLLATE "C" PRIMARY KEY NOT NULL,
	"since" bigint NOT NULL
);
--> statement-breakpoint
ALTER TABLE "occurrences" DROP CONSTRAINT "occurrences_outcome_check";--> statement-breakpoint
ALTER TABLE "runs" DROP CONSTRAINT "runs_trigger_check";--> statement-breakpoint
CREATE UNIQUE INDEX "deliveries_dedup_unique" ON "deliveries" USING btree ("dedup_key");--> statement-breakpoint
CREATE INDEX "deliveries_job_idx" ON "deliveries" USING btree ("job_id","id");--> statement-breakpoint
CREATE INDEX "deliveries_pending_idx" ON "deliveries" USING btree ("due_at","id") WHERE state = 'pending';--> statement-breakpoint
ALTER TABLE "occurrences" ADD CONSTRAINT "occurrences_outcome_check" CHECK (outcome IN ('ran', 'skipped-overlap', 'missed-while-down', 'outside-catchup-window', 'dst-skipped', 'paused', 'deduplicated', 'overdue'));--> statement-breakpoint
ALTER TABLE "runs" ADD CONSTRAINT "runs_trigger_check" CHECK ("trigger" IN ('schedule', 'manual', 'retry', 'catchup', 'backfill', 'dependency', 'ping'));