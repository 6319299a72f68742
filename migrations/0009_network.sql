CREATE TABLE `contact_relations` (
	`id` text PRIMARY KEY NOT NULL,
	`a_id` text NOT NULL,
	`b_id` text NOT NULL,
	`source` text NOT NULL,
	`weight` real NOT NULL,
	`created_at` integer NOT NULL,
	FOREIGN KEY (`a_id`) REFERENCES `connections`(`id`) ON UPDATE no action ON DELETE cascade,
	FOREIGN KEY (`b_id`) REFERENCES `connections`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE UNIQUE INDEX `contact_relations_pair` ON `contact_relations` (`a_id`,`b_id`);--> statement-breakpoint
CREATE INDEX `contact_relations_b_idx` ON `contact_relations` (`b_id`);--> statement-breakpoint
CREATE TABLE `network_counters` (
	`name` text PRIMARY KEY NOT NULL,
	`value` integer NOT NULL
);
--> statement-breakpoint
CREATE TABLE `network_snapshots` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`graph_version` text NOT NULL,
	`algo_version` integer NOT NULL,
	`change_key` text NOT NULL,
	`computed_at` integer NOT NULL,
	`payload_json` text NOT NULL
);
--> statement-breakpoint
INSERT INTO `network_counters` (`name`, `value`) VALUES ('contacts', 0), ('relations', 0);--> statement-breakpoint
CREATE TRIGGER `network_contacts_inserted` AFTER INSERT ON `connections` BEGIN UPDATE `network_counters` SET `value` = `value` + 1 WHERE `name` = 'contacts'; END;--> statement-breakpoint
CREATE TRIGGER `network_contacts_updated` AFTER UPDATE ON `connections` BEGIN UPDATE `network_counters` SET `value` = `value` + 1 WHERE `name` = 'contacts'; END;--> statement-breakpoint
CREATE TRIGGER `network_contacts_deleted` AFTER DELETE ON `connections` BEGIN UPDATE `network_counters` SET `value` = `value` + 1 WHERE `name` = 'contacts'; END;--> statement-breakpoint
CREATE TRIGGER `network_relations_inserted` AFTER INSERT ON `contact_relations` BEGIN UPDATE `network_counters` SET `value` = `value` + 1 WHERE `name` = 'relations'; END;--> statement-breakpoint
CREATE TRIGGER `network_relations_updated` AFTER UPDATE ON `contact_relations` BEGIN UPDATE `network_counters` SET `value` = `value` + 1 WHERE `name` = 'relations'; END;--> statement-breakpoint
CREATE TRIGGER `network_relations_deleted` AFTER DELETE ON `contact_relations` BEGIN UPDATE `network_counters` SET `value` = `value` + 1 WHERE `name` = 'relations'; END;
