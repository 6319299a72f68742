import { index, integer, sqliteTable, text } from "drizzle-orm/sqlite-core";

/**
 * One-time sign-in codes for the owner's email. Only an HMAC of the code is stored (keyed with
 * the node secret, bound to the row id and the address), so a copy of the database does not
 * reveal a live code. A code dies when used, when it has had 5 wrong tries, when it expires, or
 * when a newer code is issued for the address.
 */
export const ownerCodes = sqliteTable(
  "owner_codes",
  {
    id: text("id").primaryKey(),
    email: text("email").notNull(),
    codeHash: text("code_hash").notNull(),
    /** `email` (sent by POST /auth/email/send) or `cli` (kith owner code). */
    origin: text("origin", { enum: ["email", "cli"] }).notNull(),
    attempts: integer("attempts").notNull().default(0),
    expiresAt: integer("expires_at").notNull(),
    consumedAt: integer("consumed_at"),
    createdAt: integer("created_at").notNull(),
  },
  (t) => [index("owner_codes_email").on(t.email, t.createdAt)],
);
