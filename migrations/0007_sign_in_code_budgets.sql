ALTER TABLE `owner_codes` ADD `requester` text;--> statement-breakpoint
ALTER TABLE `owner_codes` ADD `foreign_attempts` integer DEFAULT 0 NOT NULL;