-- The extension request path's cache generation (docs/decisions/extensions.md "Request cache"):
-- every change to a table the seven checks or the audit signer read bumps `extensions`, whichever
-- connection or process makes it, so a cache keyed by the counter sees a key rotation or
-- revocation, a grant change, a renewal, an uninstall, a suspension or a new extension key on the
-- very next request. A later migration that rebuilds one of these tables must recreate its
-- triggers (test/extensions/request-cache.test.ts fails otherwise).
CREATE TABLE `cache_generations` (
	`name` text PRIMARY KEY NOT NULL,
	`generation` integer NOT NULL
);
--> statement-breakpoint
INSERT INTO `cache_generations` (`name`, `generation`) VALUES ('extensions', 0);
--> statement-breakpoint
CREATE TRIGGER `agent_keys_ext_generation_insert` AFTER INSERT ON `agent_keys` BEGIN
	UPDATE `cache_generations` SET `generation` = `generation` + 1 WHERE `name` = 'extensions';
END;
--> statement-breakpoint
CREATE TRIGGER `agent_keys_ext_generation_update` AFTER UPDATE ON `agent_keys` BEGIN
	UPDATE `cache_generations` SET `generation` = `generation` + 1 WHERE `name` = 'extensions';
END;
--> statement-breakpoint
CREATE TRIGGER `agent_keys_ext_generation_delete` AFTER DELETE ON `agent_keys` BEGIN
	UPDATE `cache_generations` SET `generation` = `generation` + 1 WHERE `name` = 'extensions';
END;
--> statement-breakpoint
CREATE TRIGGER `extension_installations_ext_generation_insert` AFTER INSERT ON `extension_installations` BEGIN
	UPDATE `cache_generations` SET `generation` = `generation` + 1 WHERE `name` = 'extensions';
END;
--> statement-breakpoint
CREATE TRIGGER `extension_installations_ext_generation_update` AFTER UPDATE ON `extension_installations` BEGIN
	UPDATE `cache_generations` SET `generation` = `generation` + 1 WHERE `name` = 'extensions';
END;
--> statement-breakpoint
CREATE TRIGGER `extension_installations_ext_generation_delete` AFTER DELETE ON `extension_installations` BEGIN
	UPDATE `cache_generations` SET `generation` = `generation` + 1 WHERE `name` = 'extensions';
END;
--> statement-breakpoint
CREATE TRIGGER `marketplace_extensions_ext_generation_insert` AFTER INSERT ON `marketplace_extensions` BEGIN
	UPDATE `cache_generations` SET `generation` = `generation` + 1 WHERE `name` = 'extensions';
END;
--> statement-breakpoint
CREATE TRIGGER `marketplace_extensions_ext_generation_update` AFTER UPDATE OF `extension_id`, `listing_state` ON `marketplace_extensions` BEGIN
	UPDATE `cache_generations` SET `generation` = `generation` + 1 WHERE `name` = 'extensions';
END;
--> statement-breakpoint
CREATE TRIGGER `marketplace_extensions_ext_generation_delete` AFTER DELETE ON `marketplace_extensions` BEGIN
	UPDATE `cache_generations` SET `generation` = `generation` + 1 WHERE `name` = 'extensions';
END;
