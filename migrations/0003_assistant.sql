CREATE TABLE `job_cursors` (
	`name` text PRIMARY KEY NOT NULL,
	`seq` integer NOT NULL,
	`updated_at` integer NOT NULL
);
--> statement-breakpoint
CREATE TABLE `message_labels` (
	`message_id` text NOT NULL,
	`label` text NOT NULL,
	`rule_id` text,
	`created_at` integer NOT NULL,
	PRIMARY KEY(`message_id`, `label`)
);
--> statement-breakpoint
CREATE INDEX `message_labels_label_idx` ON `message_labels` (`label`);--> statement-breakpoint
CREATE TABLE `profile_snapshots` (
	`scope` text PRIMARY KEY NOT NULL,
	`json` text NOT NULL,
	`updated_at` integer NOT NULL
);
--> statement-breakpoint
CREATE TABLE `relationship_notes` (
	`id` text PRIMARY KEY NOT NULL,
	`connection_id` text NOT NULL,
	`text` text NOT NULL,
	`created_at` integer NOT NULL,
	FOREIGN KEY (`connection_id`) REFERENCES `connections`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE INDEX `relationship_notes_connection_idx` ON `relationship_notes` (`connection_id`,`created_at`);--> statement-breakpoint
CREATE TABLE `rule_runs` (
	`id` text PRIMARY KEY NOT NULL,
	`rule_id` text NOT NULL,
	`message_id` text NOT NULL,
	`action` text NOT NULL,
	`outcome` text NOT NULL,
	`detail_json` text,
	`created_at` integer NOT NULL
);
--> statement-breakpoint
CREATE INDEX `rule_runs_rule_idx` ON `rule_runs` (`rule_id`,`created_at`);--> statement-breakpoint
CREATE INDEX `rule_runs_message_idx` ON `rule_runs` (`message_id`);--> statement-breakpoint
CREATE TABLE `rules` (
	`id` text PRIMARY KEY NOT NULL,
	`name` text NOT NULL,
	`enabled` integer DEFAULT true NOT NULL,
	`priority` integer NOT NULL,
	`match_json` text NOT NULL,
	`action` text NOT NULL,
	`action_json` text NOT NULL,
	`created_at` integer NOT NULL,
	`updated_at` integer NOT NULL,
	CONSTRAINT "rules_action" CHECK("rules"."action" in ('auto_respond', 'decline', 'hold', 'label'))
);
--> statement-breakpoint
CREATE INDEX `rules_order_idx` ON `rules` (`priority`,`created_at`);--> statement-breakpoint
ALTER TABLE `connections` ADD `layer` text DEFAULT 'known' NOT NULL;--> statement-breakpoint
ALTER TABLE `connections` ADD `layer_override` text;--> statement-breakpoint
ALTER TABLE `connections` ADD `health` text;--> statement-breakpoint
ALTER TABLE `connections` ADD `health_score` real;--> statement-breakpoint
ALTER TABLE `connections` ADD `relationship_json` text;--> statement-breakpoint
ALTER TABLE `connections` ADD `layer_computed_at` integer;--> statement-breakpoint
ALTER TABLE `connections` ADD `source` text DEFAULT 'ink' NOT NULL;--> statement-breakpoint
ALTER TABLE `connections` ADD `import_key` text;--> statement-breakpoint
ALTER TABLE `connections` ADD `email` text;--> statement-breakpoint
ALTER TABLE `connections` ADD `company` text;--> statement-breakpoint
ALTER TABLE `connections` ADD `position` text;--> statement-breakpoint
ALTER TABLE `connections` ADD `linkedin_url` text;--> statement-breakpoint
CREATE UNIQUE INDEX `connections_import_key_unique` ON `connections` (`import_key`);--> statement-breakpoint
CREATE INDEX `messages_peer_idx` ON `messages` (`peer_principal`,`received_at`);