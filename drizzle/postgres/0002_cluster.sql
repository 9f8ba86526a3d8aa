CREATE TABLE "cluster_lease" (
	"name" text PRIMARY KEY NOT NULL,
	"holder" text,
	"term" bigint DEFAULT 0 NOT NULL,
	"expires_at" bigint DEFAULT 0 NOT NULL
);
--> statement-breakpoint
CREATE TABLE "cluster_map" (
	"id" smallint PRIMARY KEY NOT NULL,
	"term" bigint NOT NULL,
	"coordinator" text NOT NULL,
	"published_at" bigint NOT NULL,
	"map" jsonb NOT NULL,
	CONSTRAINT "cluster_map_single_row_check" CHECK (id = 1)
);
--> statement-breakpoint
CREATE TABLE "cluster_nodes" (
	"id" text PRIMARY KEY NOT NULL,
	"hostname" text NOT NULL,
	"address" text NOT NULL,
	"version" text NOT NULL,
	"labels" jsonb NOT NULL,
	"load" integer NOT NULL,
	"started_at" bigint NOT NULL,
	"heartbeat_at" bigint NOT NULL
);
