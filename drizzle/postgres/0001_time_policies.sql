CREATE TABLE "job_dependencies" (
	"job_id" text COLLATE "C" NOT NULL,
	"upstream_id" text COLLATE "C" NOT NULL,
	"on" text NOT NULL,
	CONSTRAINT "job_dependencies_pk" PRIMARY KEY("job_id","upstream_id","on"),
	CONSTRAINT "job_dependencies_on_check" CHECK ("on" IN ('success', 'failure', 'always', 'all'))
);
--> statement-breakpoint
CREATE TABLE "occurrences" (
	"job_id" text COLLATE "C" NOT NULL,
	"scheduled_for" bigint NOT NULL,
	"wall" text COLLATE "C" DEFAULT '' NOT NULL,
	"outcome" text NOT NULL,
	"reason" text NOT NULL,
	"node" text NOT NULL,
	"decided_at" bigint NOT NULL,
	CONSTRAINT "occurrences_pk" PRIMARY KEY("job_id","scheduled_for","wall"),
	CONSTRAINT "occurrences_outcome_check" CHECK (outcome IN ('ran', 'skipped-overlap', 'missed-while-down', 'outside-catchup-window', 'dst-skipped', 'paused', 'deduplicated'))
);
--> statement-breakpoint
ALTER TABLE "runs" DROP CONSTRAINT "runs_trigger_check";--> statement-breakpoint
ALTER TABLE "job_dependencies" ADD CONSTRAINT "job_dependencies_job_id_jobs_id_fk" FOREIGN KEY ("job_id") REFERENCES "public"."jobs"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "occurrences" ADD CONSTRAINT "occurrences_job_id_jobs_id_fk" FOREIGN KEY ("job_id") REFERENCES "public"."jobs"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "job_dependencies_upstream_idx" ON "job_dependencies" USING btree ("upstream_id");--> statement-breakpoint
CREATE INDEX "occurrences_decided_idx" ON "occurrences" USING btree ("decided_at");--> statement-breakpoint
ALTER TABLE "runs" ADD CONSTRAINT "runs_trigger_check" CHECK ("trigger" IN ('schedule', 'manual', 'retry', 'catchup', 'backfill', 'dependency'));