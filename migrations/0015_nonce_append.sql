-- Replay nonces become an append-only table (docs/decisions/inbound-performance.md "The replay-nonce
-- store"): the (scope, nonce) primary key goes, the replay check is answered from an in-memory index
-- of the rows. The old table has no id column: the rows are copied oldest first and numbered anew.
PRAGMA foreign_keys=OFF;--> statement-breakpoint
CREATE TABLE `__new_inbound_nonces` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`scope` text NOT NULL,
	`nonce` text NOT NULL,
	`seen_at` integer NOT NULL
);
--> statement-breakpoint
INSERT INTO `__new_inbound_nonces`("scope", "nonce", "seen_at") SELECT "scope", "nonce", "seen_at" FROM `inbound_nonces` ORDER BY "seen_at";--> statement-breakpoint
DROP TABLE `inbound_nonces`;--> statement-breakpoint
ALTER TABLE `__new_inbound_nonces` RENAME TO `inbound_nonces`;--> statement-breakpoint
PRAGMA foreign_keys=ON;--> statement-breakpoint
CREATE INDEX `inbound_nonces_seen_idx` ON `inbound_nonces` (`seen_at`);