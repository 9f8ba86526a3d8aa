ALTER TABLE "occurrences" ADD COLUMN "host" text COLLATE "C" DEFAULT '' NOT NULL;--> statement-breakpoint
ALTER TABLE "occurrences" DROP CONSTRAINT "occurrences_pk";
--> statement-breakpoint
ALTER TABLE "occurrences" ADD CONSTRAINT "occurrences_pk" PRIMARY KEY("job_id","scheduled_for","wall","host");