CREATE TABLE `marketplace_extensions` (
	`seq` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`extension_id` text NOT NULL,
	`listing_state` text NOT NULL,
	`latest_version` text,
	`name` text NOT NULL,
	`summary` text NOT NULL,
	`publisher_name` text NOT NULL,
	`publisher_domain` text NOT NULL,
	`categories` text NOT NULL,
	`publisher_verified_at` integer,
	`publisher_checked_at` integer,
	`created_at` integer NOT NULL,
	`updated_at` integer NOT NULL,
	CONSTRAINT "marketplace_extensions_listing" CHECK("marketplace_extensions"."listing_state" in ('unlisted', 'listed', 'delisted', 'suspended'))
);
--> statement-breakpoint
CREATE UNIQUE INDEX `marketplace_extensions_id_idx` ON `marketplace_extensions` (`extension_id`);--> statement-breakpoint
CREATE TABLE `marketplace_reviews` (
	`extension_id` text NOT NULL,
	`reviewer_agent_id` text NOT NULL,
	`rating` integer NOT NULL,
	`comment` text,
	`created_at` integer NOT NULL,
	PRIMARY KEY(`extension_id`, `reviewer_agent_id`),
	CONSTRAINT "marketplace_reviews_rating" CHECK("marketplace_reviews"."rating" between 1 and 5)
);
--> statement-breakpoint
CREATE TABLE `marketplace_versions` (
	`extension_id` text NOT NULL,
	`version` text NOT NULL,
	`manifest_json` text NOT NULL,
	`manifest_hash` text NOT NULL,
	`review_state` text NOT NULL,
	`reasons_json` text,
	`submitted_at` integer NOT NULL,
	`reviewed_at` integer,
	`published_at` integer,
	PRIMARY KEY(`extension_id`, `version`),
	CONSTRAINT "marketplace_versions_state" CHECK("marketplace_versions"."review_state" in ('draft', 'submitted', 'in_review', 'approved', 'rejected', 'withdrawn'))
);
--> statement-breakpoint
CREATE INDEX `marketplace_versions_state_idx` ON `marketplace_versions` (`review_state`,`submitted_at`);