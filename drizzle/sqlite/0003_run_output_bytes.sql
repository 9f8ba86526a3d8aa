ALTER TABLE `runs` ADD `stdout_bytes` integer;--> statement-breakpoint
ALTER TABLE `runs` ADD `stderr_bytes` integer;