import { Elysia } from "elysia";
import * as v from "valibot";
import { DomainError } from "../../domain/errors.ts";
import { finishOAuth } from "../../domain/owner/finish-oauth.ts";
import type { SignInDeps } from "../../domain/owner/sign-in.ts";
import { startOAuth } from "../../domain/owner/start-oauth.ts";
import { CODE_CHALLENGE_PATTERN, CODE_VERIFIER_PATTERN } from "../../security/pkce.ts";
import { PUBLIC, type SurfaceDeps } from "../deps.ts";
import { routeOptions } from "../plugins/route-options.ts";
import { jsonBody } from "../schemas/body.ts";
import { COOKIE_SIGN_IN, CookieSessionDoc, OAuthProvider, State, TokenPairDoc } from "../schemas/auth.ts";
import { errorResponse, errors } from "../schemas/common.ts";
import { deliverPair } from "../session-cookie.ts";
import { renewDevice } from "../device-cookie.ts";
import { jsonDocument } from "./wellknown.routes.ts";

const MINUTE = 60_000;
const Uri = v.pipe(v.string(), v.maxLength(2048), v.url(), v.description("Absolute URI, exactly as on the node's allowlist (KITH_OAUTH_REDIRECT_URIS)"));

/**
 * Owner sign-in through an OAuth provider: Google and Apple (OpenID Connect) and the AT Protocol.
 * The client (a console, an app) picks `state` and a PKCE S256 challenge (required), sends the
 * owner to the provider, receives the code at its redirect URI and posts it back here with the
 * verifier.
 */
export function oauthRoutes(deps: SurfaceDeps, signIn: SignInDeps, atprotoClientMetadata: () => Record<string, unknown> | null) {
  const publicCtx = (request: Request) => deps.ctx({ kind: "public", ip: deps.clientIp(request) });
  const tag = (summary: string, description: string) => ({ tags: ["Owner sign-in"], summary, description });
  return new Elysia({ name: "kith/oauth" })
    .use(routeOptions)
    .get(
      "/auth/atproto/client-metadata.json",
      () => {
        const doc = atprotoClientMetadata();
        if (!doc) throw new DomainError("not_found", "AT Protocol sign-in not found");
        return new Response(JSON.stringify(doc), { headers: { "content-type": "application/json", "cache-control": "max-age=300" } });
      },
      {
        detail: {
          ...tag("AT Protocol OAuth client metadata", "This node's client_id document for AT Protocol sign-in (404 when not configured)"),
          responses: { ...jsonDocument("AT Protocol OAuth client metadata"), 404: errorResponse("AT Protocol sign-in is not configured") },
        },
      },
    )
    .get(
      "/auth/:provider/authorize",
      async ({ params, query, request, set }) => {
        const { url } = await startOAuth(publicCtx(request), { provider: params.provider, redirectUri: query.redirect_uri, state: query.state, codeChallenge: query.code_challenge }, signIn);
        set.headers["cache-control"] = "no-store";
        if (query.mode === "json") return { url };
        return new Response(null, { status: 302, headers: { location: url, "cache-control": "no-store" } });
      },
      {
        // Each start writes a state row and, for atproto, makes several requests to the owner's PDS.
        perIp: { bucket: "oauth-authorize-ip", limit: 10, windowMs: MINUTE },
        params: v.object({ provider: OAuthProvider }),
        query: v.object({
          redirect_uri: Uri,
          state: State,
          code_challenge: v.pipe(
            v.string("code_challenge: required (PKCE S256: BASE64URL(SHA-256(code_verifier)))"),
            v.regex(CODE_CHALLENGE_PATTERN, "a PKCE S256 challenge: 43 base64url characters"),
            v.description("Required. PKCE S256: BASE64URL(SHA-256(code_verifier)); the callback must bring the verifier"),
          ),
          code_challenge_method: v.optional(v.literal("S256")),
          mode: v.optional(v.picklist(["redirect", "json"]), "redirect"),
        }),
        response: { 200: v.object({ url: v.pipe(v.string(), v.description("The provider's authorization URL")) }), ...errors(400, 404, 429, 503) },
        detail: {
          ...tag(
            "Start signing in with google, apple or atproto",
            "302 to the provider (mode=redirect, the default) or 200 {url} (mode=json). The redirect_uri must be on the allowlist; the " +
              "state is single-use; code_challenge (PKCE S256) is required. 404 when the provider is not configured, 503 when it cannot be reached. " +
              "10 starts per minute per client IP (429 with Retry-After).",
          ),
          responses: { 302: { description: "To the provider's authorization URL", headers: { location: { schema: { type: "string", format: "uri" } } } } },
        },
      },
    )
    .post(
      "/auth/:provider/callback",
      async ({ params, body, request, set }) => {
        set.headers["cache-control"] = "no-store";
        const pair = await finishOAuth(publicCtx(request), { provider: params.provider, code: body.code, state: body.state, redirectUri: body.redirect_uri, codeVerifier: body.code_verifier, iss: body.iss }, signIn);
        const answer = deliverPair(pair, request, set.headers, deps.node.publicUrl);
        renewDevice(set.headers, request, signIn, () => deps.ctx(PUBLIC).ids.next()); // this device signed the owner in
        return answer;
      },
      {
        perIp: { bucket: "oauth-callback-ip", limit: 20, windowMs: MINUTE },
        params: v.object({ provider: OAuthProvider }),
        body: jsonBody(
          // The authorization response as the client received it: providers add parameters of their
          // own (scope, authuser, session_state), which RFC 6749 §4.1.2 says to ignore.
          v.looseObject({
            code: v.pipe(v.string(), v.minLength(1), v.maxLength(2048)),
            state: State,
            redirect_uri: Uri,
            code_verifier: v.pipe(
              v.string("code_verifier: required (the PKCE verifier whose S256 challenge started this sign-in)"),
              v.regex(CODE_VERIFIER_PATTERN, "43-128 characters of A-Z a-z 0-9 - . _ ~"),
            ),
            iss: v.optional(v.pipe(v.string(), v.maxLength(2048), v.description("The `iss` of the authorization response (RFC 9207): required for atproto; for google and apple checked when present, required when the provider advertises it"))),
          }),
        ),
        response: { 200: v.union([TokenPairDoc, CookieSessionDoc]), ...errors(400, 404, 429, 503) },
        detail: tag(
          "Finish an OAuth sign-in: the code for a TokenPair",
          "400 for an unknown, expired or reused state, another redirect_uri, a missing code_verifier or one that does not match the code_challenge, a code " +
            "the provider refuses, and any identity but the owner's. " + COOKIE_SIGN_IN,
        ),
      },
    );
}
