import type { AtprotoClient } from "../../adapters/atproto-oauth.ts";
import type { OidcClient } from "../../adapters/oidc.ts";
import type { DeviceTokens } from "../../security/device-token.ts";
import type { OwnerTokens } from "../../security/owner-token.ts";
import type { Mailer } from "./mailer.ts";

/**
 * What the owner sign-in verbs share: the collaborators the composition root builds once (token
 * signer, code key, mailer, provider clients) and the rules that decide who the owner is.
 */
export interface SignInDeps {
  tokens: OwnerTokens;
  /** HMAC key for sign-in codes, derived from the node secret. */
  codeKey: Uint8Array;
  /** HMAC key that derives a rotated refresh token's successor, derived from the node secret. */
  refreshKey: Uint8Array;
  /** Signs and checks device cookies (a device the owner signed in from), keyed by the node secret. */
  devices: DeviceTokens;
  /** The owner email from flag or environment (or stored when the node started); the stored setting is read when null. */
  ownerEmail: string | null;
  mailer: Mailer;
  publicUrl: string;
  /** KITH_OAUTH_REDIRECT_URIS: the only redirect URIs an OAuth sign-in may name. */
  redirectUris: readonly string[];
  oidc: Partial<Record<OidcProviderName, OidcSignIn>>;
  atproto: AtprotoClient | null;
}

export type OidcProviderName = "google" | "apple";
export type OAuthProviderName = OidcProviderName | "atproto";
export type SignInMethod = "email" | OAuthProviderName;

export interface OidcSignIn {
  client: OidcClient;
  /** The owner's subject at this provider (KITH_GOOGLE_SUBJECT / KITH_APPLE_SUBJECT), when configured. */
  subject: string | null;
}

/** SPEC TokenPair, plus the RFC 6749 hints a client needs to schedule its refresh. */
export interface TokenPair {
  accessToken: string;
  refreshToken: string;
  userId: string;
  tokenType: "Bearer";
  expiresIn: number;
}

export const CODE_TTL_MS = 10 * 60 * 1000;
/** Wrong tries a mailed code allows the client that asked for it... */
export const CODE_MAX_TRIES = 5;
/** ...and every other client together (a stranger cannot use up the requester's own). */
export const CODE_MAX_FOREIGN_TRIES = 3;
export const OAUTH_STATE_TTL_MS = 10 * 60 * 1000;
/** Pending OAuth sign-ins kept at most; beyond, the oldest are dropped (docs/decisions/owner-sign-in.md). */
export const MAX_OAUTH_STATES = 1000;
export const REFRESH_TOKEN_TTL_MS = 30 * 24 * 60 * 60 * 1000;
/** A just-rotated refresh token presented again this soon answers its successor (two tabs), not a revocation. */
export const REFRESH_REUSE_GRACE_MS = 30 * 1000;
/** Rows past their expiry by this much are deleted when new ones are written. */
export const EXPIRED_ROW_GRACE_MS = 24 * 60 * 60 * 1000;

// The WHATWG HTML "valid e-mail address" grammar: strict enough to refuse junk, accepts owner@localhost.
export const EMAIL_PATTERN =
  /^[A-Za-z0-9.!#$%&'*+/=?^_`{|}~-]+@[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?(?:\.[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?)*$/;

