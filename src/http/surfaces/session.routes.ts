import { Elysia } from "elysia";
import * as v from "valibot";
import { DomainError } from "../../domain/errors.ts";
import { logout } from "../../domain/owner/logout.ts";
import type { SignInDeps } from "../../domain/owner/sign-in.ts";
import { refreshSession } from "../../domain/owner/refresh-session.ts";
import type { SurfaceDeps } from "../deps.ts";
import { routeOptions } from "../plugins/route-options.ts";
import { CookieSessionDoc } from "../schemas/auth.ts";
import { errors } from "../schemas/common.ts";
import { renewDevice } from "../device-cookie.ts";
import { PUBLIC } from "../deps.ts";
import { clearedSessionCookie, COOKIE_MODE_HEADER, cookieSession, isSecureContext, readSessionCookie } from "../session-cookie.ts";

const MINUTE = 60_000;

/**
 * The cookie flavour of /auth/refresh and /auth/logout, for browsers (the owner console): the
 * refresh token comes from the HttpOnly session cookie a cookie-mode sign-in set. Both demand the
 * `X-Kith-Session: cookie` header: a page of another origin cannot send it without a CORS
 * preflight the node never grants, which (with SameSite=Strict) closes cross-site request forgery.
 */
export function sessionRoutes(deps: SurfaceDeps, signIn: SignInDeps) {
  const publicCtx = (request: Request) => deps.ctx({ kind: "public", ip: deps.clientIp(request) });
  const detail = (summary: string, description: string) => ({ tags: ["Owner sign-in"], summary, description });
  const headers = v.object({ [COOKIE_MODE_HEADER]: v.pipe(v.literal("cookie", `${COOKIE_MODE_HEADER}: must be "cookie"`), v.description("Required; makes a cross-origin request need a preflight the node never grants")) });
  return new Elysia({ name: "kith/session" })
    .use(routeOptions)
    .post(
      "/auth/session/refresh",
      async ({ request, set }) => {
        set.headers["cache-control"] = "no-store";
        const secure = isSecureContext(request, deps.node.publicUrl);
        const token = readSessionCookie(request);
        if (!token) {
          set.headers["set-cookie"] = clearedSessionCookie(secure);
          throw new DomainError("unauthorized", "no session cookie; sign in");
        }
        try {
          const answer = cookieSession(await refreshSession(publicCtx(request), { refreshToken: token }, signIn), request, set.headers, deps.node.publicUrl);
          renewDevice(set.headers, request, signIn, () => deps.ctx(PUBLIC).ids.next()); // as /auth/refresh does
          return answer;
        } catch (e) {
          // A dead session's cookie is useless; drop it so the browser stops sending it.
          if (e instanceof DomainError && e.code === "unauthorized") set.headers["set-cookie"] = clearedSessionCookie(secure);
          throw e;
        }
      },
      {
        perIp: { bucket: "refresh-ip", limit: 30, windowMs: MINUTE },
        headers,
        response: { 200: CookieSessionDoc, ...errors(400, 401, 429) },
        detail: detail(
          "Refresh a browser session (cookie)",
          "Rotates the refresh token held in the HttpOnly `kith_session` cookie (set by a sign-in sent with `X-Kith-Session: cookie`) and answers a new " +
            "access token; the rotated token goes back in the cookie. Same rules as /auth/refresh (single use, 30 s grace for two tabs, reuse revokes the session). " +
            "401 (and the cookie cleared) when there is no live session.",
        ),
      },
    )
    .post(
      "/auth/session/logout",
      ({ request, set }) => {
        const token = readSessionCookie(request);
        set.headers["set-cookie"] = clearedSessionCookie(isSecureContext(request, deps.node.publicUrl));
        return token ? logout(publicCtx(request), { refreshToken: token }) : { loggedOut: true as const };
      },
      {
        headers,
        response: { 200: v.object({ loggedOut: v.literal(true) }), ...errors(400) },
        detail: detail("End a browser session (cookie)", "Revokes the session of the `kith_session` cookie and clears it. Answers the same without a cookie."),
      },
    );
}
