DROP INDEX "jobs_name_idx";--> statement-breakpoint
CREATE INDEX "jobs_cancelled_name_idx" ON "jobs" USING btree ("name","id") WHERE deleted_at IS NOT NULL;