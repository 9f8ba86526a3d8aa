ALTER TABLE "runs" ADD COLUMN "stdout_bytes" bigint;--> statement-breakpoint
ALTER TABLE "runs" ADD COLUMN "stderr_bytes" bigint;