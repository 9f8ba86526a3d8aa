DROP INDEX "jobs_expect_success_idx";--> statement-breakpoint
DROP INDEX "jobs_secret_values_idx";--> statement-breakpoint
ALTER TABLE "jobs" ADD COLUMN "expects_success" boolean DEFAULT false NOT NULL;--> statement-breakpoint
ALTER TABLE "jobs" ADD COLUMN "holds_secrets" boolean DEFAULT false NOT NULL;--> statement-breakpoint
-- The flags of the jobs stored so far, by the conditions the two indexes had.
UPDATE "jobs" SET "expects_success" = true WHERE (definition::json -> 'alerts' ->> 'expectSuccessEveryMs') IS NOT NULL;--> statement-breakpoint
UPDATE "jobs" SET "holds_secrets" = true WHERE ((definition::json ->> 'payload') IS NOT NULL OR (definition::json -> 'target' ->> 'env') <> '{}' OR (definition::json -> 'target' ->> 'headers') <> '{}');--> statement-breakpoint
CREATE INDEX "jobs_expect_success_idx" ON "jobs" USING btree ("id") WHERE expects_success;--> statement-breakpoint
CREATE INDEX "jobs_secret_values_idx" ON "jobs" USING btree ("id") WHERE holds_secrets;