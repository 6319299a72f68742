import { Elysia } from "elysia";
import * as v from "valibot";
import { parseRawBody } from "../../ink/index.ts";
import { issueMessage } from "../schemas/body.ts";
import type { ExtensionActor } from "../../domain/context.ts";
import { DomainError } from "../../domain/errors.ts";
import { authenticateExtension } from "../../domain/extensions/authenticate-extension.ts";
import { authenticateExtensionBatched } from "../../domain/extensions/authenticate-extension-batched.ts";
import { recordExtensionCall } from "../../domain/extensions/record-extension-call.ts";
import { nativeStrictVerifier } from "../../security/ed25519-native.ts";
import type { RateRule } from "../../security/rate-limit.ts";
import { PUBLIC, type SurfaceDeps } from "../deps.ts";
import { isJsonRequest, readRawBody } from "./raw-body.ts";

/** Per installation, counted only for requests that passed the seven checks (docs/extensions.md "Limits"). */
export const EXT_LIMITS = {
  requests: { limit: 600, windowMs: 60_000 },
  intents: { limit: 60, windowMs: 60_000 },
} satisfies Record<string, RateRule>;

/** How an extension route is read: its body cap (0: no body) and whether it is an intent send (its own limit). */
export interface ExtRoute {
  maxBytes: number;
  bucket?: "intents";
}

/** The installation each extension request authenticated as, for the metrics the request log records (request-log.ts). */
const installations = new WeakMap<Request, string>();
export const extensionInstallationOf = (request: Request): string | null => installations.get(request) ?? null;
/** Notes the installation a request authenticated as outside this plugin (token renewal, checks 4–7). */
export const noteExtensionInstallation = (request: Request, installationId: string): void => void installations.set(request, installationId);

/** OpenAPI `security` of every /ext/v1 route (components.securitySchemes.extensionDelegation). */
export const EXT_SECURITY = [{ extensionDelegation: [] as string[] }];

/**
 * The extension delegation scheme (SPEC Authentication §2) as a plugin, a sibling of the owner
 * bearer (owner-auth.ts) and INK signature (ink-signature.ts) ones: a route declared with
 * `extension: {maxBytes}` (and `parse: "none"` when it takes a body) gets
 * `actor = {kind: "extension", …}` and `rawBody`, or never runs. In order: the body read once as
 * bytes under its cap (the signature covers its hash), the seven checks
 * (domain/extensions/authenticate-extension.ts), the installation's rate limit (never charged
 * for a request that failed a check), then the nonce and the audit event, recorded together.
 *
 * Unnamed, as owner-auth.ts: a de-duplicated plugin would leave a second route group without it.
 */
export function extensionAuth(deps: SurfaceDeps) {
  // Authenticated at the transform stage, as owner-auth.ts does (before query, path and body
  // validation: an unauthenticated caller learns nothing of a route but 401); resolve hands the
  // result to the handler, typed.
  const authenticated = new WeakMap<Request, { actor: ExtensionActor; rawBody: Uint8Array }>();
  return new Elysia().macro({
    extension: (route: ExtRoute) => ({
      async transform({ request, set }: { request: Request; set: { headers: Record<string, string | number> } }): Promise<void> {
        authenticated.set(request, await authenticate(deps, route, request, set));
      },
      resolve({ request }: { request: Request }): { actor: ExtensionActor; rawBody: Uint8Array } {
        const found = authenticated.get(request);
        if (!found) throw new DomainError("unauthorized", "not authenticated", { reason: "token_invalid" });
        return found;
      },
    }),
  });
}

async function authenticate(deps: SurfaceDeps, route: ExtRoute, request: Request, set: { headers: Record<string, string | number> }): Promise<{ actor: ExtensionActor; rawBody: Uint8Array }> {
  let body: Uint8Array<ArrayBufferLike> = new Uint8Array(0);
  if (route.maxBytes > 0) {
    if (!isJsonRequest(request)) throw new DomainError("unsupported_media_type", "the body must be application/json");
    const read = await readRawBody(request, route.maxBytes);
    if (read === null) throw new DomainError("payload_too_large", `the body is larger than ${route.maxBytes} bytes`);
    body = read;
  }
  const h = request.headers;
  const url = request.url;
  const target = url.slice(url.indexOf("/", url.indexOf("://") + 3));
  // The checks read the database, the clock and the batcher, never the caller's address.
  const ctx = deps.ctx(PUBLIC);
  const input = { authorization: h.get("authorization"), nonce: h.get("x-request-nonce"), timestamp: h.get("x-request-timestamp"), signature: h.get("x-extension-signature"), method: request.method, target, body };
  let authed: ReturnType<typeof authenticateExtension>;
  try {
    // check 7's verify on a worker, batched with the turn's other requests, where there are spare cores
    authed = ctx.crypto.size > 0 ? await authenticateExtensionBatched(ctx, input, nativeStrictVerifier, ctx.crypto) : authenticateExtension(ctx, input, nativeStrictVerifier);
  } catch (error) {
    if (error instanceof DomainError && error.code === "unauthorized") set.headers["www-authenticate"] = `Bearer realm="kith-extensions", error="${error.reason}"`;
    throw error;
  }
  const { nonce, cache, ...actor } = authed;
  installations.set(request, actor.installationId);
  const limits: Array<[string, RateRule]> = [["ext", EXT_LIMITS.requests]];
  if (route.bucket) limits.push([`ext-${route.bucket}`, EXT_LIMITS[route.bucket]]);
  for (const [bucket, rule] of limits) {
    const d = deps.limiter.consume(bucket, actor.installationId, rule, deps.now());
    if (!d.allowed) throw new DomainError("rate_limited", "this installation sent too many requests; retry later", { retryAfterSeconds: d.retryAfterSeconds });
  }
  await recordExtensionCall(deps.ctx(actor), actor, { nonce, method: request.method, target, cache });
  return { actor, rawBody: body };
}

/**
 * A signed body, parsed after authentication: the INK raw-body gate (strict UTF-8, no lone
 * surrogates, number range, plain member names; INK §4.2) then the route's schema, 400 naming
 * the member.
 */
export function extBody<S extends v.GenericSchema>(raw: Uint8Array, schema: S): v.InferOutput<S> {
  const gate = parseRawBody(raw, raw.length);
  if (!gate.ok) throw new DomainError("invalid_input", `invalid request: body: ${gate.reason}`);
  const parsed = v.safeParse(schema, gate.value);
  if (!parsed.success) throw new DomainError("invalid_input", `invalid request: ${issueMessage(parsed.issues[0], "body")}`);
  return parsed.output;
}
