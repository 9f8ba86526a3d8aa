CREATE INDEX `jobs_cancelled_id_idx` ON `jobs` (`id`) WHERE state = 'cancelled';--> statement-breakpoint
CREATE INDEX `jobs_owner_state_idx` ON `jobs` (`owner`,`state`,`id`);