import { integer, sqliteTable, text } from "drizzle-orm/sqlite-core";

/**
 * One row per started OAuth sign-in (google, apple, atproto), keyed by SHA-256 of the client's
 * `state`. It binds the state to its provider, its redirect URI, the client's PKCE challenge and
 * the node's own PKCE verifier and nonce; the callback consumes it once. `providerData` holds
 * what a provider needs between the two steps (the AT Protocol issuer, owner DID and DPoP key).
 */
export const oauthStates = sqliteTable("oauth_states", {
  stateHash: text("state_hash").primaryKey(),
  provider: text("provider", { enum: ["google", "apple", "atproto"] }).notNull(),
  redirectUri: text("redirect_uri").notNull(),
  clientCodeChallenge: text("client_code_challenge"),
  providerCodeVerifier: text("provider_code_verifier").notNull(),
  nonce: text("nonce").notNull(),
  providerData: text("provider_data"),
  expiresAt: integer("expires_at").notNull(),
  consumedAt: integer("consumed_at"),
  createdAt: integer("created_at").notNull(),
});
