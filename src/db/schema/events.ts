import { integer, sqliteTable, text } from "drizzle-orm/sqlite-core";

/** Append-only event log (`<entity>.<verb-past>`, INK audit names where one exists). */
export const events = sqliteTable("events", {
  seq: integer("seq").primaryKey({ autoIncrement: true }),
  type: text("type").notNull(),
  subjectId: text("subject_id"),
  peerPrincipal: text("peer_principal"),
  dataJson: text("data_json"),
  createdAt: integer("created_at").notNull(),
});

/** How far each background job has read the `events` log (last processed `seq`). */
export const jobCursors = sqliteTable("job_cursors", {
  name: text("name").primaryKey(),
  seq: integer("seq").notNull(),
  updatedAt: integer("updated_at").notNull(),
});
