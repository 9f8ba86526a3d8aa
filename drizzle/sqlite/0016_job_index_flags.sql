DROP INDEX `jobs_expect_success_idx`;--> statement-breakpoint
DROP INDEX `jobs_secret_values_idx`;--> statement-breakpoint
ALTER TABLE `jobs` ADD `expects_success` integer DEFAULT false NOT NULL;--> statement-breakpoint
ALTER TABLE `jobs` ADD `holds_secrets` integer DEFAULT false NOT NULL;--> statement-breakpoint
-- The flags of the jobs stored so far, by the conditions the two indexes had.
UPDATE `jobs` SET `expects_success` = 1 WHERE json_extract(definition, '$.alerts.expectSuccessEveryMs') IS NOT NULL;--> statement-breakpoint
UPDATE `jobs` SET `holds_secrets` = 1 WHERE (json_extract(definition, '$.payload') IS NOT NULL OR json_extract(definition, '$.target.env') <> '{}' OR json_extract(definition, '$.target.headers') <> '{}');--> statement-breakpoint
CREATE INDEX `jobs_expect_success_idx` ON `jobs` (`id`) WHERE expects_success;--> statement-breakpoint
CREATE INDEX `jobs_secret_values_idx` ON `jobs` (`id`) WHERE holds_secrets;