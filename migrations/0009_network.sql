CREATE TABLE `contact_relations` (
	`id` text PRIMARY KEY NOT NULL,
	`a_id` text NOT NULL,
	`b_id` text NOT NULL,
	`source` text NOT NULL,
	`weight` real NOT NULL,
	`created_at` integer NOT NULL,
	FOREIGN KEY (`a_id`) REFERENCES `connections`(`id`) ON UPDATE no action ON DELETE cascade,
	FOREIGN KEY (`b_id`) REFERENCES `connections`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE UNIQUE INDEX `contact_relations_pair` ON `contact_relations` (`a_id`,`b_id`);--> statement-breakpoint
CREATE INDEX `contact_relations_b_idx` ON `contact_relations` (`b_id`);--> statement-breakpoint
CREATE TABLE `network_snapshots` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`graph_version` text NOT NULL,
	`algo_version` integer NOT NULL,
	`change_key` text NOT NULL,
	`computed_at` integer NOT NULL,
	`payload_json` text NOT NULL
);
