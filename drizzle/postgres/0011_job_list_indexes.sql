CREATE INDEX "jobs_cancelled_id_idx" ON "jobs" USING btree ("id") WHERE state = 'cancelled';--> statement-breakpoint
CREATE INDEX "jobs_owner_state_idx" ON "jobs" USING btree ("owner","state","id");--> statement-breakpoint
CREATE INDEX "jobs_active_without_next_run_idx" ON "jobs" USING btree ("id") WHERE state = 'active' AND next_run_at IS NULL;