-- Full-text index of the marketplace (SPEC "Marketplace": search over name, summary, publisher and
-- categories), built like directory_fts (0005): contentless with contentless_delete, only `listed`
-- rows indexed, kept in step by triggers inside the same statement as the row. Categories are a
-- JSON array, indexed as their space-joined values. Name weighs most, then publisher, summary,
-- categories.
CREATE VIRTUAL TABLE `marketplace_fts` USING fts5(
	name, summary, publisher, categories,
	content='', contentless_delete=1, tokenize='unicode61 remove_diacritics 2', prefix='2 3 4 5 6 7 8 9 10'
);
--> statement-breakpoint
INSERT INTO `marketplace_fts` (`marketplace_fts`, `rank`) VALUES ('rank', 'bm25(10.0, 3.0, 5.0, 2.0)');
--> statement-breakpoint
CREATE TRIGGER `marketplace_extensions_fts_insert` AFTER INSERT ON `marketplace_extensions` WHEN new.listing_state = 'listed' BEGIN
	INSERT INTO `marketplace_fts` (rowid, name, summary, publisher, categories)
	VALUES (new.seq, new.name, new.summary, new.publisher_name || ' ' || new.publisher_domain, (SELECT group_concat(value, ' ') FROM json_each(new.categories)));
END;
--> statement-breakpoint
CREATE TRIGGER `marketplace_extensions_fts_delete` AFTER DELETE ON `marketplace_extensions` WHEN old.listing_state = 'listed' BEGIN
	DELETE FROM `marketplace_fts` WHERE rowid = old.seq;
END;
--> statement-breakpoint
CREATE TRIGGER `marketplace_extensions_fts_update` AFTER UPDATE OF name, summary, publisher_name, publisher_domain, categories, listing_state ON `marketplace_extensions` BEGIN
	DELETE FROM `marketplace_fts` WHERE rowid = old.seq AND old.listing_state = 'listed';
	INSERT INTO `marketplace_fts` (rowid, name, summary, publisher, categories)
	SELECT new.seq, new.name, new.summary, new.publisher_name || ' ' || new.publisher_domain, (SELECT group_concat(value, ' ') FROM json_each(new.categories))
	WHERE new.listing_state = 'listed';
END;
