import type { TokenPair } from "../domain/owner/sign-in.ts";
import { REFRESH_TOKEN_TTL_MS } from "../domain/owner/sign-in.ts";

/**
 * Browser sessions (the owner console): the refresh token lives in an HttpOnly cookie instead of
 * the page's memory, so script on the page (an XSS) can never read it, and a reload keeps the
 * session. A client opts in per request with `X-Kith-Session: cookie`; every other client keeps
 * SPEC's TokenPair in the body. Reasoning and what was rejected: docs/decisions/owner-console.md.
 */
export const SESSION_COOKIE = "kith_session";
/** The cookie is sent only to the two endpoints that use it. */
export const SESSION_PATH = "/auth/session";
export const COOKIE_MODE_HEADER = "x-kith-session";

/** Whether this sign-in or session request asked for (and may use) the cookie. */
export function wantsCookie(request: Request): boolean {
  return request.headers.get(COOKIE_MODE_HEADER) === "cookie";
}

/** The refresh token of the session cookie, or null (absent, or not the shape a token has). */
export function readSessionCookie(request: Request): string | null {
  for (const part of (request.headers.get("cookie") ?? "").split(";")) {
    const eq = part.indexOf("=");
    if (eq < 0 || part.slice(0, eq).trim() !== SESSION_COOKIE) continue;
    const value = part.slice(eq + 1).trim();
    return /^[A-Za-z0-9_\-]{1,128}$/.test(value) ? value : null;
  }
  return null;
}

/**
 * `Set-Cookie` for a refresh token: HttpOnly (no script reads it), SameSite=Strict (no other site's
 * page makes the browser send it), scoped to /auth/session, Secure whenever the node is reached
 * over https (a plain-http node on localhost could not keep a Secure cookie in every browser).
 */
export function sessionCookie(refreshToken: string, secure: boolean): string {
  return `${SESSION_COOKIE}=${refreshToken}; Path=${SESSION_PATH}; Max-Age=${REFRESH_TOKEN_TTL_MS / 1000}; HttpOnly; SameSite=Strict${secure ? "; Secure" : ""}`;
}

export function clearedSessionCookie(secure: boolean): string {
  return `${SESSION_COOKIE}=; Path=${SESSION_PATH}; Max-Age=0; HttpOnly; SameSite=Strict${secure ? "; Secure" : ""}`;
}

/** Secure when the request arrived over https, or the node's public URL is https (behind a TLS proxy). */
export function isSecureContext(request: Request, publicUrl: string): boolean {
  return publicUrl.startsWith("https:") || request.url.startsWith("https:");
}

/** What a cookie-mode sign-in answers: the TokenPair without its refresh token (that is in the cookie). */
export interface CookieSession {
  accessToken: string;
  userId: string;
  tokenType: "Bearer";
  expiresIn: number;
  session: "cookie";
}

/** Hands a fresh pair to the client the way it asked: SPEC's TokenPair body, or a cookie session. */
export function deliverPair(pair: TokenPair, request: Request, headers: Record<string, unknown>, publicUrl: string): TokenPair | CookieSession {
  return wantsCookie(request) ? cookieSession(pair, request, headers, publicUrl) : pair;
}

/** The refresh token into the cookie, the rest into the body. */
export function cookieSession(pair: TokenPair, request: Request, headers: Record<string, unknown>, publicUrl: string): CookieSession {
  headers["set-cookie"] = sessionCookie(pair.refreshToken, isSecureContext(request, publicUrl));
  return { accessToken: pair.accessToken, userId: pair.userId, tokenType: pair.tokenType, expiresIn: pair.expiresIn, session: "cookie" };
}
