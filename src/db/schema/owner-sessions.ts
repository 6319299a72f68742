import { index, integer, sqliteTable, text } from "drizzle-orm/sqlite-core";

/**
 * A signed-in owner session: one family of refresh tokens. Revoking the session (logout, or a
 * spent refresh token presented again) ends every token of the family.
 */
export const ownerSessions = sqliteTable("owner_sessions", {
  id: text("id").primaryKey(),
  /** How the owner signed in: email, google, apple, atproto. */
  method: text("method").notNull(),
  createdAt: integer("created_at").notNull(),
  lastUsedAt: integer("last_used_at").notNull(),
  revokedAt: integer("revoked_at"),
  revokeReason: text("revoke_reason"),
});

/** Opaque refresh tokens, stored as SHA-256 only; each is spent by its one use (rotation). */
export const refreshTokens = sqliteTable(
  "refresh_tokens",
  {
    tokenHash: text("token_hash").primaryKey(),
    sessionId: text("session_id")
      .notNull()
      .references(() => ownerSessions.id, { onDelete: "cascade" }),
    expiresAt: integer("expires_at").notNull(),
    spentAt: integer("spent_at"),
    createdAt: integer("created_at").notNull(),
  },
  (t) => [index("refresh_tokens_session").on(t.sessionId)],
);
