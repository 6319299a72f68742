-- Full-text index of the discovery registry (drizzle-kit cannot express FTS5 virtual tables or
-- triggers). Contentless (the text lives in directory_listings) with contentless_delete, so a row
-- leaves the index by rowid. Only `listed` rows are indexed; the triggers keep the index in step
-- inside the same statement, hence the same transaction, as the listing row. Array columns are
-- JSON arrays, indexed as their space-joined values. unicode61 with remove_diacritics 2 folds case
-- and accents. Every query word is a prefix query; prefix indexes of 2 to 10 characters let FTS5
-- read a prefix's doclist directly instead of merging every matching term's doclist (halves the
-- query cost on common words; +65% index size; scripts/bench/discover.ts).
-- The default rank is bm25 with column weights: handle and display_name highest, then headline and
-- skills, then tags, then bio, interests, open_to and roles, then location.
CREATE VIRTUAL TABLE `directory_fts` USING fts5(
	handle, display_name, headline, skills, tags, bio, interests, open_to, roles, location,
	content='', contentless_delete=1, tokenize='unicode61 remove_diacritics 2', prefix='2 3 4 5 6 7 8 9 10'
);
--> statement-breakpoint
INSERT INTO `directory_fts` (`directory_fts`, `rank`) VALUES ('rank', 'bm25(10.0, 10.0, 5.0, 5.0, 3.0, 2.0, 2.0, 2.0, 2.0, 1.0)');
--> statement-breakpoint
CREATE TRIGGER `directory_listings_fts_insert` AFTER INSERT ON `directory_listings` WHEN new.status = 'listed' BEGIN
	INSERT INTO `directory_fts` (rowid, handle, display_name, headline, skills, tags, bio, interests, open_to, roles, location)
	VALUES (
		new.id, new.handle, new.display_name, new.headline,
		(SELECT group_concat(value, ' ') FROM json_each(new.skills)),
		(SELECT group_concat(value, ' ') FROM json_each(new.tags)),
		new.bio,
		(SELECT group_concat(value, ' ') FROM json_each(new.interests)),
		(SELECT group_concat(value, ' ') FROM json_each(new.open_to)),
		(SELECT group_concat(value, ' ') FROM json_each(new.roles)),
		new.location
	);
END;
--> statement-breakpoint
CREATE TRIGGER `directory_listings_fts_delete` AFTER DELETE ON `directory_listings` WHEN old.status = 'listed' BEGIN
	DELETE FROM `directory_fts` WHERE rowid = old.id;
END;
--> statement-breakpoint
CREATE TRIGGER `directory_listings_fts_update` AFTER UPDATE OF handle, display_name, headline, bio, skills, interests, open_to, roles, tags, location, status ON `directory_listings` BEGIN
	DELETE FROM `directory_fts` WHERE rowid = old.id AND old.status = 'listed';
	INSERT INTO `directory_fts` (rowid, handle, display_name, headline, skills, tags, bio, interests, open_to, roles, location)
	SELECT
		new.id, new.handle, new.display_name, new.headline,
		(SELECT group_concat(value, ' ') FROM json_each(new.skills)),
		(SELECT group_concat(value, ' ') FROM json_each(new.tags)),
		new.bio,
		(SELECT group_concat(value, ' ') FROM json_each(new.interests)),
		(SELECT group_concat(value, ' ') FROM json_each(new.open_to)),
		(SELECT group_concat(value, ' ') FROM json_each(new.roles)),
		new.location
	WHERE new.status = 'listed';
END;
