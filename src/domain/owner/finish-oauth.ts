import { and, eq, isNull } from "drizzle-orm";
import { transaction } from "../../db/client.ts";
import { oauthStates } from "../../db/schema/index.ts";
import type { AtprotoPending } from "../../adapters/atproto-oauth.ts";
import { sha256Base64url } from "../../security/one-time-code.ts";
import { OutboundError, SignInRejected } from "../../security/outbound-errors.ts";
import { verifierMatches } from "../../security/pkce.ts";
import type { Ctx } from "../context.ts";
import { DomainError } from "../errors.ts";
import { invalidInput, notFound } from "../internal/errors.ts";
import { type OAuthProviderName, type SignInDeps, type TokenPair } from "./sign-in.ts";
import { findOwnerEmail } from "./internal/owner-email.ts";
import { providerUnavailable } from "./internal/provider-unavailable.ts";
import { startSession } from "./internal/start-session.ts";

export interface FinishOAuthInput {
  provider: OAuthProviderName;
  code: string;
  state: string;
  redirectUri: string;
  codeVerifier: string;
  /** RFC 9207 `iss` of the authorization response: required for AT Protocol, checked when present for the others. */
  iss?: string | undefined;
}

/** One answer for a refused code and for an identity that is not the owner's (DESIGN: Owner). */
export const NOT_ACCEPTED = "the provider did not confirm the owner's identity";

/**
 * `POST /auth/{provider}/callback`: consumes the state (once, whatever happens next), checks that
 * it was issued for this provider and redirect URI and that the client's PKCE verifier matches its
 * challenge, then lets the provider exchange the code (with the node's own verifier) and accepts
 * only the owner: the configured subject when there is one, else a verified email equal to the
 * owner's (google, apple); the configured DID (atproto).
 */
export async function finishOAuth(ctx: Ctx, input: FinishOAuthInput, deps: Pick<SignInDeps, "oidc" | "atproto" | "ownerEmail" | "tokens">): Promise<TokenPair> {
  if (ctx.actor.kind !== "public") throw new DomainError("forbidden", "sign-in is anonymous");
  const oidc = input.provider === "atproto" ? null : deps.oidc[input.provider];
  if (input.provider === "atproto" ? !deps.atproto : !oidc) throw notFound(`sign-in provider ${input.provider}`);
  // RFC 9207: the AT Protocol profile requires the issuer in every authorization response.
  if (input.provider === "atproto" && input.iss === undefined) throw invalidInput("iss: required for AT Protocol sign-in (the authorization server's iss from the redirect, RFC 9207)");
  const now = ctx.clock.now();
  const stateHash = sha256Base64url(input.state);
  const row = transaction(ctx.db, (tx) =>
    tx.update(oauthStates).set({ consumedAt: now }).where(and(eq(oauthStates.stateHash, stateHash), isNull(oauthStates.consumedAt))).returning().get(),
  );
  if (!row || row.expiresAt <= now) throw invalidInput("state: unknown, expired or already used");
  if (row.provider !== input.provider || row.redirectUri !== input.redirectUri) throw invalidInput("state: issued for another provider or redirect_uri");
  // PKCE is required (issue 21): whoever holds the redirect's code and state still needs the
  // verifier only the client that started the sign-in has. A row without a challenge predates that rule.
  if (row.clientCodeChallenge === null || !verifierMatches(input.codeVerifier, row.clientCodeChallenge)) throw invalidInput("code_verifier: does not match the code_challenge of this sign-in");

  try {
    if (input.provider === "atproto") {
      const pending = JSON.parse(row.providerData ?? "null") as AtprotoPending;
      await deps.atproto!.finish({ code: input.code, redirectUri: row.redirectUri, codeVerifier: row.providerCodeVerifier, iss: input.iss!, pending });
    } else {
      const identity = await oidc!.client.finish({ code: input.code, redirectUri: row.redirectUri, codeVerifier: row.providerCodeVerifier, nonce: row.nonce, iss: input.iss ?? null });
      // A configured subject is the only way in for its provider: an email can be re-assigned or
      // added to another account, a subject cannot (issue 21).
      const ownerEmail = oidc!.subject === null ? findOwnerEmail(ctx.db, deps.ownerEmail) : null;
      const accepted = oidc!.subject !== null ? identity.subject === oidc!.subject : ownerEmail !== null && identity.emailVerified && identity.email === ownerEmail;
      if (!accepted) throw new SignInRejected(`${input.provider} account is not the owner's`);
    }
  } catch (e) {
    if (e instanceof SignInRejected) {
      ctx.log.warn("owner sign-in refused", { provider: input.provider, reason: e.message });
      throw invalidInput(NOT_ACCEPTED);
    }
    if (e instanceof OutboundError) throw providerUnavailable(ctx, input.provider, e);
    throw e;
  }
  return startSession(ctx, deps, input.provider);
}
