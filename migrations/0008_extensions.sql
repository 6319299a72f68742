CREATE TABLE `extension_idempotency` (
	`installation_id` text NOT NULL,
	`key` text NOT NULL,
	`request_hash` text NOT NULL,
	`status` integer NOT NULL,
	`response_json` text NOT NULL,
	`created_at` integer NOT NULL,
	PRIMARY KEY(`installation_id`, `key`)
);
--> statement-breakpoint
CREATE INDEX `extension_idempotency_created_idx` ON `extension_idempotency` (`created_at`);--> statement-breakpoint
CREATE TABLE `extension_installations` (
	`id` text PRIMARY KEY NOT NULL,
	`extension_id` text NOT NULL,
	`version` text NOT NULL,
	`source` text NOT NULL,
	`source_url` text,
	`manifest_json` text NOT NULL,
	`manifest_hash` text NOT NULL,
	`status` text NOT NULL,
	`permissions_json` text NOT NULL,
	`layers_json` text NOT NULL,
	`max_autonomy_tier` text NOT NULL,
	`keys_json` text NOT NULL,
	`pending_manifest_json` text,
	`pending_manifest_hash` text,
	`token_hash` text,
	`token_expires_at` integer,
	`token_version` integer DEFAULT 0 NOT NULL,
	`created_at` integer NOT NULL,
	`updated_at` integer NOT NULL,
	`uninstalled_at` integer,
	CONSTRAINT "extension_installations_status" CHECK("extension_installations"."status" in ('active', 'pending_update', 'uninstalled'))
);
--> statement-breakpoint
CREATE INDEX `extension_installations_extension_idx` ON `extension_installations` (`extension_id`,`status`);--> statement-breakpoint
CREATE TABLE `audit_events` (
	`chain_id` text NOT NULL,
	`sequence` integer NOT NULL,
	`event_type` text NOT NULL,
	`event_json` text NOT NULL,
	`hash` text NOT NULL,
	`created_at` integer NOT NULL,
	PRIMARY KEY(`chain_id`, `sequence`)
);
--> statement-breakpoint
CREATE INDEX `audit_events_created_idx` ON `audit_events` (`created_at`);--> statement-breakpoint
ALTER TABLE `messages` ADD `provenance_json` text;