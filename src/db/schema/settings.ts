import { integer, sqliteTable, text } from "drizzle-orm/sqlite-core";

/** Node settings stored by `kith init` (public URL, owner email, ...); flags and env override them. */
export const settings = sqliteTable("settings", {
  key: text("key").primaryKey(),
  value: text("value").notNull(),
  updatedAt: integer("updated_at").notNull(),
});
