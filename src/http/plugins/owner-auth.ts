import { Elysia } from "elysia";
import type { Actor } from "../../domain/context.ts";
import { DomainError } from "../../domain/errors.ts";
import type { OwnerTokens } from "../../security/owner-token.ts";

/** OpenAPI `security` of every owner route (components.securitySchemes.ownerBearer). */
export const OWNER_SECURITY = [{ ownerBearer: [] as string[] }];

/** The bearer check of a request: the owner actor, or why not and the RFC 6750 challenge to send. */
export type OwnerVerdict = { ok: true; actor: Actor } | { ok: false; message: string; challenge: string };
export type OwnerCheck = (request: Request) => Promise<OwnerVerdict>;

const OWNER_CHECK = Symbol("kith.ownerCheck");

/**
 * The owner bearer scheme (SPEC Authentication §1) as a plugin: every route of an instance that
 * `.use(ownerAuth(tokens))` gets `actor = {kind: "owner"}` or never runs. A missing, malformed,
 * expired, wrong-audience, wrong-issuer or forged token answers 401 `{error, message}` with a
 * `WWW-Authenticate: Bearer` challenge (RFC 6750 §3).
 *
 * The check is also what the request gate runs first on these routes, before it reads any body
 * (ownerCheckOf; docs/decisions/request-limits.md): an anonymous caller gets 401 without the body
 * being read, and learns nothing about a route beyond that. Done once per request (memoized).
 *
 * Deliberately unnamed: Elysia de-duplicates named plugins across the app, and a de-duplicated
 * scoped hook would leave the second route group that uses it unprotected.
 */
export function ownerAuth(tokens: Pick<OwnerTokens, "verify">) {
  const verdicts = new WeakMap<Request, Promise<OwnerVerdict>>();
  const check: OwnerCheck = (request) => {
    let verdict = verdicts.get(request);
    if (!verdict) verdicts.set(request, (verdict = verify(tokens, request)));
    return verdict;
  };
  const derive = async ({ request, set }: { request: Request; set: { headers: Record<string, string | number> } }) => {
    const verdict = await check(request);
    if (!verdict.ok) throw refuse(set, verdict);
    return { actor: verdict.actor };
  };
  Object.defineProperty(derive, OWNER_CHECK, { value: check });
  return new Elysia().derive({ as: "scoped" }, derive);
}

/** The owner check of a route that uses ownerAuth (from its transform hooks), or null. */
export function ownerCheckOf(transform: Array<{ fn: unknown }> | undefined): OwnerCheck | null {
  for (const hook of transform ?? []) {
    const check = (hook.fn as { [OWNER_CHECK]?: OwnerCheck } | null)?.[OWNER_CHECK];
    if (check) return check;
  }
  return null;
}

/** The 401 for a failed check, with its challenge header. */
export function refuse(set: { headers: Record<string, string | number> }, verdict: Extract<OwnerVerdict, { ok: false }>): DomainError {
  set.headers["www-authenticate"] = verdict.challenge;
  return new DomainError("unauthorized", verdict.message);
}

async function verify(tokens: Pick<OwnerTokens, "verify">, request: Request): Promise<OwnerVerdict> {
  const header = request.headers.get("authorization");
  // RFC 9110 §11.1 (was RFC 7235 §2.1): the scheme is case-insensitive, then 1*SP, then the token68.
  // The INK-Ed25519 scheme stays exact: INK §6.2 freezes its grammar (lowercase-scheme-rejects).
  const match = header?.match(/^Bearer +([A-Za-z0-9\-._~+/]+=*)$/i);
  if (!match) {
    return { ok: false, challenge: 'Bearer realm="kith"', message: header ? "malformed Authorization header: expected Bearer <access token>" : "owner access token required (Authorization: Bearer <token>)" };
  }
  const claims = await tokens.verify(match[1]!);
  if (!claims) return { ok: false, challenge: 'Bearer realm="kith", error="invalid_token"', message: "the access token is invalid or expired" };
  return { ok: true, actor: { kind: "owner", subject: claims.subject } };
}
