CREATE TABLE `directory_listings` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`principal` text NOT NULL,
	`agent_id` text NOT NULL,
	`card_url` text NOT NULL,
	`handle` text NOT NULL,
	`handle_key` text NOT NULL,
	`display_name` text NOT NULL,
	`headline` text NOT NULL,
	`bio` text NOT NULL,
	`skills` text NOT NULL,
	`interests` text NOT NULL,
	`open_to` text NOT NULL,
	`roles` text NOT NULL,
	`tags` text NOT NULL,
	`location` text,
	`facets` text NOT NULL,
	`source` text NOT NULL,
	`status` text NOT NULL,
	`listed_at` integer NOT NULL,
	`updated_at` integer NOT NULL,
	`last_validated_at` integer,
	`next_validation_at` integer,
	`failures` integer DEFAULT 0 NOT NULL,
	`last_error` text,
	CONSTRAINT "directory_listings_source" CHECK("directory_listings"."source" in ('self', 'remote')),
	CONSTRAINT "directory_listings_status" CHECK("directory_listings"."status" in ('listed', 'delisted', 'dropped'))
);
--> statement-breakpoint
CREATE UNIQUE INDEX `directory_listings_principal_unique` ON `directory_listings` (`principal`);--> statement-breakpoint
CREATE INDEX `directory_listings_handle_idx` ON `directory_listings` (`handle_key`,`status`);--> statement-breakpoint
CREATE INDEX `directory_listings_validation_idx` ON `directory_listings` (`status`,`next_validation_at`);--> statement-breakpoint
CREATE TABLE `directory_pushes` (
	`directory` text PRIMARY KEY NOT NULL,
	`id` text NOT NULL,
	`action` text NOT NULL,
	`status` text NOT NULL,
	`attempts` integer DEFAULT 0 NOT NULL,
	`next_attempt_at` integer NOT NULL,
	`last_attempt_at` integer,
	`last_status` integer,
	`last_error` text,
	`delivered_at` integer,
	`remote_status` text,
	`created_at` integer NOT NULL,
	CONSTRAINT "directory_pushes_action" CHECK("directory_pushes"."action" in ('publish', 'unpublish')),
	CONSTRAINT "directory_pushes_status" CHECK("directory_pushes"."status" in ('queued', 'delivered', 'failed'))
);
--> statement-breakpoint
CREATE INDEX `directory_pushes_due_idx` ON `directory_pushes` (`status`,`next_attempt_at`);