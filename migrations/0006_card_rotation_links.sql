CREATE TABLE `agent_rotation_links` (
	`key_set_version` integer PRIMARY KEY NOT NULL,
	`link_json` text NOT NULL,
	`created_at` integer NOT NULL
);
