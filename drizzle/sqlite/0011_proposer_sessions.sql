CREATE TABLE `proposer_sessions` (
	`proposer` text PRIMARY KEY NOT NULL,
	`through` integer NOT NULL,
	`beyond` text NOT NULL,
	`latest_at` integer NOT NULL,
	`last_index` integer NOT NULL
);
