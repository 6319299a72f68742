import { Elysia } from "elysia";
import * as v from "valibot";
import { DomainError } from "../../domain/errors.ts";
import { listSignInProviders } from "../../domain/owner/list-sign-in-providers.ts";
import { logout } from "../../domain/owner/logout.ts";
import type { SignInDeps, TokenPair } from "../../domain/owner/sign-in.ts";
import { refreshSession } from "../../domain/owner/refresh-session.ts";
import { sendEmailCode } from "../../domain/owner/send-email-code.ts";
import { verifyEmailCode } from "../../domain/owner/verify-email-code.ts";
import type { SurfaceDeps } from "../deps.ts";
import { PUBLIC } from "../deps.ts";
import { routeOptions } from "../plugins/route-options.ts";
import { jsonBody } from "../schemas/body.ts";
import { COOKIE_SIGN_IN, CookieSessionDoc, OAuthErrorDoc, OAuthTokenDoc, Email, TokenPairDoc } from "../schemas/auth.ts";
import { ErrorBody, errors } from "../schemas/common.ts";
import { deliverPair } from "../session-cookie.ts";
import { deviceOf, renewDevice } from "../device-cookie.ts";

const MINUTE = 60_000;
const NO_STORE = "no-store";

/**
 * Owner sign-in by emailed code, and the session endpoints (refresh, logout) every sign-in method
 * shares. The OAuth providers are in oauth.routes.ts.
 */
export function authRoutes(deps: SurfaceDeps, signIn: SignInDeps) {
  const publicCtx = (request: Request) => deps.ctx({ kind: "public", ip: deps.clientIp(request) });
  const tag = (summary: string, description?: string) => ({ tags: ["Owner sign-in"], summary, ...(description ? { description } : {}) });
  const newDeviceId = () => deps.ctx(PUBLIC).ids.next();
  return new Elysia({ name: "kith/auth" })
    .use(routeOptions)
    .get("/auth/providers", () => ({ providers: listSignInProviders(deps.ctx(PUBLIC), signIn) }), {
      response: { 200: v.object({ providers: v.array(v.picklist(["email", "google", "apple", "atproto"])) }) },
      detail: tag("Sign-in methods this node offers", "email once the owner email is set; google, apple and atproto when configured"),
    })
    .post(
      "/auth/email/send",
      ({ body, request }) => sendEmailCode(publicCtx(request), { email: body.email, device: deviceOf(request, signIn) }, signIn),
      {
        perIp: { bucket: "email-send-ip", limit: 10, windowMs: MINUTE },
        body: jsonBody(v.strictObject({ email: Email })),
        response: { 200: v.object({ sent: v.literal(true), expiresIn: v.number() }), ...errors(400, 429) },
        detail: tag(
          "Email a one-time sign-in code to the owner",
          "Answers the same for every well-formed address; only the owner's receives a code (10 minutes, single use; 5 wrong tries for the " +
            "client that asked, 3 for all others). Limited to 3 codes per address per client and 6 per address per hour, and 10 requests " +
            "per minute per client IP (429 with Retry-After). A client is an IPv4 address or an IPv6 /64. A request with the `kith_device` " +
            "cookie a sign-in on this device set is limited to 3 codes an hour for that device instead, whatever others sent.",
        ),
      },
    )
    .post(
      "/auth/email/verify",
      async ({ body, request, set }) => {
        set.headers["cache-control"] = NO_STORE;
        const pair = await verifyEmailCode(publicCtx(request), { ...body, device: deviceOf(request, signIn) }, signIn);
        const answer = deliverPair(pair, request, set.headers, deps.node.publicUrl);
        renewDevice(set.headers, request, signIn, newDeviceId);
        return answer;
      },
      {
        perIp: { bucket: "email-verify-ip", limit: 10, windowMs: MINUTE },
        body: jsonBody(v.strictObject({ email: Email, code: v.pipe(v.string(), v.maxLength(64)) })),
        response: { 200: v.union([TokenPairDoc, CookieSessionDoc]), ...errors(400, 429) },
        detail: tag(
          "Exchange the emailed code for a TokenPair",
          "400 invalid_input for a wrong, expired, used or exhausted code, and for any address but the owner's. " +
            "Limited to 30 attempts per client per hour and 10 per minute per client IP (429 with Retry-After); never per address, " +
            "so nobody else's wrong guesses keep the owner out. A success sets the `kith_device` cookie (HttpOnly, 180 days): this device's " +
            "later sends and verifies count against the device, not against the address or its network. " + COOKIE_SIGN_IN,
        ),
      },
    )
    .post(
      "/auth/refresh",
      async ({ body, request, set }) => {
        set.headers["cache-control"] = NO_STORE;
        // A refresh proves an owner session on this device: its device cookie is renewed (or set).
        const renew = <T>(answer: T) => {
          renewDevice(set.headers, request, signIn, newDeviceId);
          return answer;
        };
        if ("refreshToken" in body) return renew(await refreshSession(publicCtx(request), body, signIn));
        // Called as an RFC 6749 token endpoint (form body, grant_type=refresh_token): RFC 6749 shapes.
        try {
          return renew(oauthTokenResponse(await refreshSession(publicCtx(request), { refreshToken: body.refresh_token }, signIn)));
        } catch (e) {
          if (!(e instanceof DomainError) || e.code !== "unauthorized") throw e;
          set.status = 400;
          return { error: "invalid_grant", error_description: e.message };
        }
      },
      {
        perIp: { bucket: "refresh-ip", limit: 30, windowMs: MINUTE },
        body: jsonBody(
          v.union([
            v.strictObject({ refreshToken: v.pipe(v.string(), v.maxLength(256)) }),
            // RFC 6749 §3.2: a token endpoint ignores parameters it does not know.
            v.pipe(
              v.looseObject({ grant_type: v.literal("refresh_token"), refresh_token: v.pipe(v.string(), v.maxLength(256)), client_id: v.optional(v.pipe(v.string(), v.maxLength(256))) }),
              v.transform(({ grant_type, refresh_token, client_id }) => ({ grant_type, refresh_token, client_id })),
            ),
          ], "refreshToken: a string of at most 256 characters is required (JSON {refreshToken}, or a form grant_type=refresh_token&refresh_token=…)"),
          { form: true },
        ),
        response: { 200: v.union([TokenPairDoc, OAuthTokenDoc]), 400: v.union([ErrorBody, OAuthErrorDoc]), ...errors(401, 429) },
        detail: tag(
          "Rotate a refresh token for a new TokenPair",
          "JSON `{refreshToken}` answers a TokenPair (401 when the token is unknown, expired, revoked or spent). Presented again within 30 s of " +
            "its rotation (two tabs at once) it answers the same new refresh token; later it revokes its whole session. Also the OAuth token endpoint: a form body `grant_type=refresh_token&refresh_token=…` " +
            "answers RFC 6749 shapes (400 invalid_grant).",
        ),
      },
    )
    .post(
      "/auth/logout",
      ({ body, request }) => logout(publicCtx(request), { refreshToken: "refreshToken" in body ? body.refreshToken : body.token }),
      {
        perIp: { bucket: "logout-ip", limit: 30, windowMs: MINUTE },
        body: jsonBody(
          v.union([
            v.strictObject({ refreshToken: v.pipe(v.string(), v.maxLength(256)) }),
            // RFC 7009 §2.1 names token and token_type_hint; other parameters are the RFC 6749 client's own (ignored).
            v.pipe(
              v.looseObject({ token: v.pipe(v.string(), v.maxLength(256)), token_type_hint: v.optional(v.pipe(v.string(), v.maxLength(64))) }),
              v.transform(({ token, token_type_hint }) => ({ token, token_type_hint })),
            ),
          ], "refreshToken: a string of at most 256 characters is required (JSON {refreshToken}, or a form token=…)"),
          { form: true },
        ),
        response: { 200: v.object({ loggedOut: v.literal(true) }), ...errors(400, 429) },
        detail: tag(
          "End the session of a refresh token",
          "Revokes every refresh token of the session (also as RFC 7009 revocation: form `token=…`). Unknown tokens answer the same. " +
            "Access tokens already issued stay valid until they expire (15 minutes). 30 requests per minute per client IP (429 with Retry-After).",
        ),
      },
    );
}

function oauthTokenResponse(pair: TokenPair) {
  return { access_token: pair.accessToken, token_type: "Bearer" as const, expires_in: pair.expiresIn, refresh_token: pair.refreshToken };
}
