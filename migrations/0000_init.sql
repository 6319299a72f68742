CREATE TABLE `agent_keys` (
	`key_id` text PRIMARY KEY NOT NULL,
	`role` text NOT NULL,
	`public_key_multibase` text NOT NULL,
	`status` text NOT NULL,
	`valid_from` integer NOT NULL,
	`valid_until` integer,
	`revoked_at` integer,
	`created_at` integer NOT NULL,
	CONSTRAINT "agent_keys_role" CHECK("agent_keys"."role" in ('signing', 'encryption')),
	CONSTRAINT "agent_keys_status" CHECK("agent_keys"."status" in ('active', 'retired', 'revoked'))
);
--> statement-breakpoint
CREATE UNIQUE INDEX `agent_keys_public_key_multibase_unique` ON `agent_keys` (`public_key_multibase`);--> statement-breakpoint
CREATE TABLE `agents` (
	`id` integer PRIMARY KEY NOT NULL,
	`genesis_key` text NOT NULL,
	`handle` text NOT NULL,
	`display_name` text NOT NULL,
	`timezone` text NOT NULL,
	`key_set_version` integer NOT NULL,
	`created_at` integer NOT NULL,
	`updated_at` integer NOT NULL,
	CONSTRAINT "agents_single_row" CHECK("agents"."id" = 1)
);
--> statement-breakpoint
CREATE UNIQUE INDEX `agents_genesis_key_unique` ON `agents` (`genesis_key`);--> statement-breakpoint
CREATE UNIQUE INDEX `agents_handle_unique` ON `agents` (`handle`);--> statement-breakpoint
CREATE TABLE `settings` (
	`key` text PRIMARY KEY NOT NULL,
	`value` text NOT NULL,
	`updated_at` integer NOT NULL
);
