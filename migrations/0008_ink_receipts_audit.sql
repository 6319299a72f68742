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
CREATE TABLE `message_receipts` (
	`id` text PRIMARY KEY NOT NULL,
	`message_id` text NOT NULL,
	`peer_principal` text NOT NULL,
	`disposition` text NOT NULL,
	`disposition_at` text NOT NULL,
	`receipt_json` text NOT NULL,
	`received_at` integer NOT NULL
);
--> statement-breakpoint
CREATE UNIQUE INDEX `message_receipts_once` ON `message_receipts` (`message_id`,`disposition`);--> statement-breakpoint
CREATE INDEX `message_receipts_peer_idx` ON `message_receipts` (`peer_principal`);