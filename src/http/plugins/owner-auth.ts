import { Elysia } from "elysia";
import type { Actor } from "../../domain/context.ts";
import { DomainError } from "../../domain/errors.ts";
import type { OwnerTokens } from "../../security/owner-token.ts";

/** OpenAPI `security` of every owner route (components.securitySchemes.ownerBearer). */
export const OWNER_SECURITY = [{ ownerBearer: [] as string[] }];

/**
 * The owner bearer scheme (SPEC Authentication §1) as a plugin: every route of an instance that
 * `.use(ownerAuth(tokens))` gets `actor = {kind: "owner"}` or never runs. A missing, malformed,
 * expired, wrong-audience, wrong-issuer or forged token answers 401 `{error, message}` with a
 * `WWW-Authenticate: Bearer` challenge (RFC 6750 §3).
 *
 * Deliberately unnamed: Elysia de-duplicates named plugins across the app, and a de-duplicated
 * scoped hook would leave the second route group that uses it unprotected.
 */
export function ownerAuth(tokens: Pick<OwnerTokens, "verify">) {
  // derive (transform stage), not resolve: the token is checked before body and query validation,
  // so an anonymous caller learns nothing about a route beyond "401". Only the request gate's
  // checks, the same for every route (size, media type, encoding, depth), come before it.
  return new Elysia().derive({ as: "scoped" }, async ({ request, set }) => {
    const header = request.headers.get("authorization");
    // RFC 9110 §11.1 (was RFC 7235 §2.1): the scheme is case-insensitive, then 1*SP, then the token68.
    // The INK-Ed25519 scheme stays exact: INK §6.2 freezes its grammar (lowercase-scheme-rejects).
    const match = header?.match(/^Bearer +([A-Za-z0-9\-._~+/]+=*)$/i);
    if (!match) {
      set.headers["www-authenticate"] = 'Bearer realm="kith"';
      throw new DomainError("unauthorized", header ? "malformed Authorization header: expected Bearer <access token>" : "owner access token required (Authorization: Bearer <token>)");
    }
    const claims = await tokens.verify(match[1]!);
    if (!claims) {
      set.headers["www-authenticate"] = 'Bearer realm="kith", error="invalid_token"';
      throw new DomainError("unauthorized", "the access token is invalid or expired");
    }
    const actor: Actor = { kind: "owner", subject: claims.subject };
    return { actor };
  });
}
