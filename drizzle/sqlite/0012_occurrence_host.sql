PRAGMA foreign_keys=OFF;--> statement-breakpoint
CREATE TABLE `__new_occurrences` (
	`job_id` text NOT NULL,
	`scheduled_for` integer NOT NULL,
	`wall` text DEFAULT '' NOT NULL,
	`outcome` text NOT NULL,
	`reason` text NOT NULL,
	`node` text NOT NULL,
	`host` text DEFAULT '' NOT NULL,
	`decided_at` integer NOT NULL,
	PRIMARY KEY(`job_id`, `scheduled_for`, `wall`, `host`),
	FOREIGN KEY (`job_id`) REFERENCES `jobs`(`id`) ON UPDATE no action ON DELETE no action,
	CONSTRAINT "occurrences_outcome_check" CHECK(outcome IN ('ran', 'skipped-overlap', 'missed-while-down', 'outside-catchup-window', 'dst-skipped', 'paused', 'store-unreachable', 'deduplicated', 'overdue'))
);
--> statement-breakpoint
INSERT INTO `__new_occurrences`("job_id", "scheduled_for", "wall", "outcome", "reason", "node", "decided_at") SELECT "job_id", "scheduled_for", "wall", "outcome", "reason", "node", "decided_at" FROM `occurrences`;--> statement-breakpoint
DROP TABLE `occurrences`;--> statement-breakpoint
ALTER TABLE `__new_occurrences` RENAME TO `occurrences`;--> statement-breakpoint
PRAGMA foreign_keys=ON;--> statement-breakpoint
CREATE INDEX `occurrences_decided_idx` ON `occurrences` (`decided_at`);