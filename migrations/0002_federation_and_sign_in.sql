CREATE TABLE `peer_cards` (
	`principal` text PRIMARY KEY NOT NULL,
	`agent_id` text NOT NULL,
	`card_url` text,
	`card_json` text,
	`fetched_at` integer,
	`expires_at` integer,
	`signing_set_observed` integer DEFAULT false NOT NULL,
	`last_refresh_at` integer,
	`created_at` integer NOT NULL,
	`updated_at` integer NOT NULL
);
--> statement-breakpoint
CREATE TABLE `connections` (
	`id` text PRIMARY KEY NOT NULL,
	`principal` text,
	`agent_id` text,
	`handle` text,
	`display_name` text,
	`card_url` text,
	`status` text NOT NULL,
	`initiated_by` text NOT NULL,
	`profile_snapshot_json` text,
	`request_message_id` text,
	`created_at` integer NOT NULL,
	`updated_at` integer NOT NULL,
	`connected_at` integer,
	`last_message_at` integer,
	CONSTRAINT "connections_status" CHECK("connections"."status" in ('pending', 'requested', 'connected', 'declined', 'blocked', 'disconnected', 'contact'))
);
--> statement-breakpoint
CREATE UNIQUE INDEX `connections_principal_unique` ON `connections` (`principal`);--> statement-breakpoint
CREATE INDEX `connections_status_idx` ON `connections` (`status`,`updated_at`);--> statement-breakpoint
CREATE TABLE `conversations` (
	`id` text PRIMARY KEY NOT NULL,
	`peer_principal` text NOT NULL,
	`correlation_id` text NOT NULL,
	`subject` text,
	`message_count` integer DEFAULT 0 NOT NULL,
	`last_message_at` integer NOT NULL,
	`created_at` integer NOT NULL
);
--> statement-breakpoint
CREATE UNIQUE INDEX `conversations_peer_correlation` ON `conversations` (`peer_principal`,`correlation_id`);--> statement-breakpoint
CREATE INDEX `conversations_last_idx` ON `conversations` (`last_message_at`);--> statement-breakpoint
CREATE TABLE `messages` (
	`id` text PRIMARY KEY NOT NULL,
	`envelope_id` text NOT NULL,
	`direction` text NOT NULL,
	`peer_principal` text NOT NULL,
	`peer_agent_id` text NOT NULL,
	`conversation_id` text NOT NULL,
	`correlation_id` text NOT NULL,
	`intent` text NOT NULL,
	`protocol` text NOT NULL,
	`payload_json` text NOT NULL,
	`envelope_json` text,
	`sealed` integer DEFAULT false NOT NULL,
	`status` text NOT NULL,
	`created_at` integer NOT NULL,
	`received_at` integer NOT NULL,
	`expires_at` integer,
	`in_reply_to` text,
	`responded_at` integer,
	`pending_action_id` text,
	`ack_status` integer,
	`key_id` text,
	`search_text` text DEFAULT '' NOT NULL,
	FOREIGN KEY (`conversation_id`) REFERENCES `conversations`(`id`) ON UPDATE no action ON DELETE no action,
	CONSTRAINT "messages_direction" CHECK("messages"."direction" in ('in', 'out'))
);
--> statement-breakpoint
CREATE UNIQUE INDEX `messages_dedupe` ON `messages` (`envelope_id`,`peer_principal`,`direction`);--> statement-breakpoint
CREATE INDEX `messages_conversation_idx` ON `messages` (`conversation_id`,`received_at`);--> statement-breakpoint
CREATE INDEX `messages_direction_idx` ON `messages` (`direction`,`received_at`);--> statement-breakpoint
CREATE TABLE `pending_actions` (
	`id` text PRIMARY KEY NOT NULL,
	`kind` text NOT NULL,
	`status` text NOT NULL,
	`message_id` text,
	`connection_id` text,
	`reason` text NOT NULL,
	`action_json` text,
	`result_json` text,
	`created_at` integer NOT NULL,
	`decided_at` integer,
	CONSTRAINT "pending_actions_status" CHECK("pending_actions"."status" in ('pending', 'approved', 'rejected'))
);
--> statement-breakpoint
CREATE INDEX `pending_actions_status_idx` ON `pending_actions` (`status`,`created_at`);--> statement-breakpoint
CREATE TABLE `inbound_nonces` (
	`scope` text NOT NULL,
	`nonce` text NOT NULL,
	`seen_at` integer NOT NULL,
	PRIMARY KEY(`scope`, `nonce`)
);
--> statement-breakpoint
CREATE INDEX `inbound_nonces_seen_idx` ON `inbound_nonces` (`seen_at`);--> statement-breakpoint
CREATE TABLE `outbox` (
	`id` text PRIMARY KEY NOT NULL,
	`message_id` text NOT NULL,
	`peer_principal` text NOT NULL,
	`status` text NOT NULL,
	`attempts` integer DEFAULT 0 NOT NULL,
	`next_attempt_at` integer NOT NULL,
	`last_attempt_at` integer,
	`last_status` integer,
	`last_error` text,
	`delivered_at` integer,
	`created_at` integer NOT NULL
);
--> statement-breakpoint
CREATE UNIQUE INDEX `outbox_message_id_unique` ON `outbox` (`message_id`);--> statement-breakpoint
CREATE INDEX `outbox_due_idx` ON `outbox` (`status`,`next_attempt_at`);--> statement-breakpoint
CREATE TABLE `events` (
	`seq` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`type` text NOT NULL,
	`subject_id` text,
	`peer_principal` text,
	`data_json` text,
	`created_at` integer NOT NULL
);
--> statement-breakpoint
CREATE TABLE `owner_policy` (
	`id` integer PRIMARY KEY NOT NULL,
	`max_autonomy_level` text NOT NULL,
	`trusted_dids_json` text DEFAULT '[]' NOT NULL,
	`max_inbound_rate` integer NOT NULL,
	`accept_foreign_agents` integer NOT NULL,
	`allowed_methods_json` text DEFAULT '[]' NOT NULL,
	`allowed_hosts_json` text DEFAULT '[]' NOT NULL,
	`allowed_dids_json` text DEFAULT '[]' NOT NULL,
	`blocked_dids_json` text DEFAULT '[]' NOT NULL,
	`updated_at` integer NOT NULL,
	CONSTRAINT "owner_policy_single_row" CHECK("owner_policy"."id" = 1)
);
--> statement-breakpoint
CREATE TABLE `owner_codes` (
	`id` text PRIMARY KEY NOT NULL,
	`email` text NOT NULL,
	`code_hash` text NOT NULL,
	`origin` text NOT NULL,
	`attempts` integer DEFAULT 0 NOT NULL,
	`expires_at` integer NOT NULL,
	`consumed_at` integer,
	`created_at` integer NOT NULL
);
--> statement-breakpoint
CREATE INDEX `owner_codes_email` ON `owner_codes` (`email`,`created_at`);--> statement-breakpoint
CREATE TABLE `oauth_states` (
	`state_hash` text PRIMARY KEY NOT NULL,
	`provider` text NOT NULL,
	`redirect_uri` text NOT NULL,
	`client_code_challenge` text,
	`provider_code_verifier` text NOT NULL,
	`nonce` text NOT NULL,
	`provider_data` text,
	`expires_at` integer NOT NULL,
	`consumed_at` integer,
	`created_at` integer NOT NULL
);
--> statement-breakpoint
CREATE TABLE `owner_sessions` (
	`id` text PRIMARY KEY NOT NULL,
	`method` text NOT NULL,
	`created_at` integer NOT NULL,
	`last_used_at` integer NOT NULL,
	`revoked_at` integer,
	`revoke_reason` text
);
--> statement-breakpoint
CREATE TABLE `refresh_tokens` (
	`token_hash` text PRIMARY KEY NOT NULL,
	`session_id` text NOT NULL,
	`expires_at` integer NOT NULL,
	`spent_at` integer,
	`created_at` integer NOT NULL,
	FOREIGN KEY (`session_id`) REFERENCES `owner_sessions`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE INDEX `refresh_tokens_session` ON `refresh_tokens` (`session_id`);