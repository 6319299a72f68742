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