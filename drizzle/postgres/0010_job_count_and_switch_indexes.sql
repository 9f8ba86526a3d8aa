CREATE INDEX "jobs_active_idx" ON "jobs" USING btree ("id") WHERE state = 'active';--> statement-breakpoint
CREATE INDEX "jobs_paused_idx" ON "jobs" USING btree ("id") WHERE state = 'paused';--> statement-breakpoint
CREATE INDEX "jobs_cancelled_idx" ON "jobs" USING btree ("deleted_at") WHERE state = 'cancelled';--> statement-breakpoint
CREATE INDEX "jobs_expect_success_idx" ON "jobs" USING btree ("id") WHERE (definition::json -> 'alerts' ->> 'expectSuccessEveryMs') IS NOT NULL;