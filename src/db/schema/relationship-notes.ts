import { index, integer, sqliteTable, text } from "drizzle-orm/sqlite-core";
import { connections } from "./connections.ts";

/** The owner's private notes on a relationship (SPEC `GET/POST /api/svc/connections/:id/notes`). */
export const relationshipNotes = sqliteTable(
  "relationship_notes",
  {
    id: text("id").primaryKey(),
    connectionId: text("connection_id")
      .notNull()
      .references(() => connections.id, { onDelete: "cascade" }),
    text: text("text").notNull(),
    createdAt: integer("created_at").notNull(),
  },
  (t) => [index("relationship_notes_connection_idx").on(t.connectionId, t.createdAt)],
);
