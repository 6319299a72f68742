import { index, integer, sqliteTable, text } from "drizzle-orm/sqlite-core";

/**
 * One-time sign-in codes for the owner's email. Only an HMAC of the code is stored (keyed with
 * the node secret, bound to the row id and the address), so a copy of the database does not
 * reveal a live code. A code dies when used, when it expires, when the owner signs in with another
 * code, or when the same client asks for a newer one. Wrong tries are counted apart for the client
 * that asked for the code (`attempts`) and for everyone else (`foreignAttempts`), so a stranger's
 * guesses never use up the owner's own tries (docs/decisions/owner-sign-in.md).
 */
export const ownerCodes = sqliteTable(
  "owner_codes",
  {
    id: text("id").primaryKey(),
    email: text("email").notNull(),
    codeHash: text("code_hash").notNull(),
    /** `email` (sent by POST /auth/email/send) or `cli` (kith owner code). */
    origin: text("origin", { enum: ["email", "cli"] }).notNull(),
    /** SHA-256 of the client key (security/client-key.ts) that asked for the code; null for `kith owner code`. */
    requester: text("requester"),
    /** Wrong tries by the requester. */
    attempts: integer("attempts").notNull().default(0),
    /** Wrong tries by any other client, shared. */
    foreignAttempts: integer("foreign_attempts").notNull().default(0),
    expiresAt: integer("expires_at").notNull(),
    consumedAt: integer("consumed_at"),
    createdAt: integer("created_at").notNull(),
  },
  (t) => [index("owner_codes_email").on(t.email, t.createdAt)],
);
