CREATE TABLE "events" (
	"id" bigserial PRIMARY KEY NOT NULL,
	"type" text NOT NULL,
	"node" text NOT NULL,
	"at" bigint NOT NULL,
	"job_id" text COLLATE "C" NOT NULL,
	"run_id" text COLLATE "C",
	"data" text NOT NULL
);
--> statement-breakpoint
CREATE INDEX "events_run_idx" ON "events" USING btree ("run_id","id");