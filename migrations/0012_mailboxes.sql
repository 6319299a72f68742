CREATE TABLE `mailbox_grants` (
	`id` text PRIMARY KEY NOT NULL,
	`agent_id` text NOT NULL,
	`principal` text NOT NULL,
	`max_messages` integer NOT NULL,
	`max_bytes` integer NOT NULL,
	`retention_ms` integer NOT NULL,
	`created_at` integer NOT NULL,
	`revoked_at` integer,
	`card_json` text,
	`card_key_set_version` integer,
	`card_published_at` integer,
	`last_drain_at` integer
);
--> statement-breakpoint
CREATE UNIQUE INDEX `mailbox_grants_agent_id_unique` ON `mailbox_grants` (`agent_id`);--> statement-breakpoint
CREATE TABLE `mailbox_items` (
	`id` text PRIMARY KEY NOT NULL,
	`grant_id` text NOT NULL,
	`sender_principal` text NOT NULL,
	`accepted_at` integer NOT NULL,
	`authorization` text NOT NULL,
	`card_hint` text,
	`body` blob NOT NULL,
	`bytes` integer NOT NULL
);
--> statement-breakpoint
CREATE INDEX `mailbox_items_grant_idx` ON `mailbox_items` (`grant_id`,`id`);--> statement-breakpoint
CREATE INDEX `mailbox_items_accepted_idx` ON `mailbox_items` (`accepted_at`);--> statement-breakpoint
CREATE TABLE `mailbox_uses` (
	`url` text PRIMARY KEY NOT NULL,
	`card_hash` text,
	`card_published_at` integer,
	`last_drain_at` integer,
	`last_error` text,
	`drained` integer DEFAULT 0 NOT NULL,
	`refused` integer DEFAULT 0 NOT NULL
);
