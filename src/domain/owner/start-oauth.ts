import { asc, count, eq, inArray, lte, sql } from "drizzle-orm";
import { transaction } from "../../db/client.ts";
import { oauthStates } from "../../db/schema/index.ts";
import { sha256Base64url } from "../../security/one-time-code.ts";
import { OutboundError } from "../../security/outbound-errors.ts";
import { newCodeVerifier, randomToken } from "../../security/pkce.ts";
import type { Ctx } from "../context.ts";
import { DomainError } from "../errors.ts";
import { invalidInput, notFound } from "../internal/errors.ts";
import { MAX_OAUTH_STATES, OAUTH_STATE_TTL_MS, type OAuthProviderName, type SignInDeps } from "./sign-in.ts";
import { providerUnavailable } from "./internal/provider-unavailable.ts";

export interface StartOAuthInput {
  provider: OAuthProviderName;
  redirectUri: string;
  state: string;
  /** The client's PKCE S256 challenge (required); its verifier must come with the callback. */
  codeChallenge: string;
}

/**
 * `GET /auth/{provider}/authorize`: checks the redirect URI against the allowlist and starts a
 * sign-in at the provider. The client's `state` is passed through to the provider and stored
 * (hashed) with everything the callback must match: provider, redirect URI, the client's PKCE
 * challenge, and the node's own PKCE verifier and nonce towards the provider (so PKCE holds end to
 * end: client ↔ node and node ↔ provider). A state is accepted once.
 */
export async function startOAuth(ctx: Ctx, input: StartOAuthInput, deps: Pick<SignInDeps, "redirectUris" | "oidc" | "atproto">): Promise<{ url: string }> {
  if (ctx.actor.kind !== "public") throw new DomainError("forbidden", "sign-in is anonymous");
  if (input.provider === "atproto" ? !deps.atproto : !deps.oidc[input.provider]) throw notFound(`sign-in provider ${input.provider}`);
  if (!deps.redirectUris.includes(input.redirectUri)) throw invalidInput("redirect_uri: not on this node's allowlist (KITH_OAUTH_REDIRECT_URIS)");
  const stateHash = sha256Base64url(input.state);
  if (ctx.db.select({ h: oauthStates.stateHash }).from(oauthStates).where(eq(oauthStates.stateHash, stateHash)).get()) throw invalidInput("state: already used; start with a fresh random state");
  const codeVerifier = newCodeVerifier();
  const nonce = randomToken();
  let url: string;
  let providerData: string | null = null;
  try {
    if (input.provider === "atproto") {
      const started = await deps.atproto!.start({ redirectUri: input.redirectUri, state: input.state, codeVerifier });
      url = started.url;
      providerData = JSON.stringify(started.pending);
    } else {
      url = await deps.oidc[input.provider]!.client.authorizationUrl({ redirectUri: input.redirectUri, state: input.state, codeVerifier, nonce });
    }
  } catch (e) {
    if (e instanceof OutboundError) throw providerUnavailable(ctx, input.provider, e);
    throw e;
  }
  const now = ctx.clock.now();
  const inserted = transaction(ctx.db, (tx) => {
    // Bounded whoever calls authorize in a loop: expired states go, and past the cap the oldest
    // pending ones are dropped (the newest, the owner's own just-started sign-in, survives).
    tx.delete(oauthStates).where(lte(oauthStates.expiresAt, now)).run();
    const over = tx.select({ n: count() }).from(oauthStates).get()!.n - (MAX_OAUTH_STATES - 1);
    if (over > 0) {
      // rowid breaks ties within a millisecond in insertion order.
      const oldest = tx.select({ h: oauthStates.stateHash }).from(oauthStates).orderBy(asc(oauthStates.createdAt), sql`rowid`).limit(over);
      tx.delete(oauthStates).where(inArray(oauthStates.stateHash, oldest)).run();
    }
    return tx
      .insert(oauthStates)
      .values({ stateHash, provider: input.provider, redirectUri: input.redirectUri, clientCodeChallenge: input.codeChallenge, providerCodeVerifier: codeVerifier, nonce, providerData, expiresAt: now + OAUTH_STATE_TTL_MS, createdAt: now })
      .onConflictDoNothing()
      .returning({ h: oauthStates.stateHash })
      .all();
  });
  if (inserted.length !== 1) throw invalidInput("state: already used; start with a fresh random state");
  return { url };
}

