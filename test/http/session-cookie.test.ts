import { afterEach, describe, expect, test } from "bun:test";
import { s256Challenge } from "../../src/security/pkce.ts";
import { bootTestApp, type TestNode } from "../helpers/boot.ts";
import { startFakeOidc, visitProvider, type FakeOidc } from "../helpers/fake-oidc.ts";
import { bearer, mailedCode, mailLines, OWNER, postJson } from "../helpers/owner.ts";
import { json } from "../helpers/process.ts";

/**
 * Browser sessions (the owner console, docs/decisions/owner-console.md): a sign-in sent with
 * `X-Kith-Session: cookie` keeps its refresh token in an HttpOnly, SameSite=Strict cookie scoped to
 * /auth/session, never in the body; /auth/session/refresh and /logout use it, and only with the header.
 */
let node: TestNode;
let fake: FakeOidc | undefined;
afterEach(() => {
  node?.close();
  fake?.stop();
  fake = undefined;
});
const COOKIE = { "x-kith-session": "cookie" };

async function cookieSignIn(n: TestNode): Promise<{ res: Response; cookie: string }> {
  const before = mailLines(n).length;
  await postJson(n, "/auth/email/send", { email: OWNER });
  const res = await postJson(n, "/auth/email/verify", { email: OWNER, code: await mailedCode(n, before + 1) }, { headers: COOKIE });
  return { res, cookie: cookieOf(res) };
}

/** The `kith_session=<value>` pair of a Set-Cookie answer ("" when absent). */
function cookieOf(res: Response): string {
  return (sessionSetCookie(res) ?? "").split(";")[0] ?? "";
}

/** The session's Set-Cookie line (a sign-in and a refresh also set the device cookie, auth-device-cookie.test.ts). */
function sessionSetCookie(res: Response): string | null {
  return res.headers.getSetCookie().find((c) => c.startsWith("kith_session=")) ?? null;
}

const session = (path: "refresh" | "logout", cookie: string | null, headers: Record<string, string> = COOKIE) =>
  node.request(`/auth/session/${path}`, { method: "POST", headers: { ...headers, ...(cookie ? { cookie } : {}), "x-test-remote-address": "192.0.2.10" } });

describe("browser sessions: the refresh token in an HttpOnly cookie", () => {
  test("a cookie-mode sign-in sets the cookie (HttpOnly, SameSite=Strict, /auth/session, 30 days) and leaves the refresh token out of the body", async () => {
    node = bootTestApp({ auth: { ownerEmail: OWNER }, publicUrl: "http://localhost:8787" });
    const { res, cookie } = await cookieSignIn(node);
    expect(res.status).toBe(200);
    const body = await json(res);
    expect(Object.keys(body).sort()).toEqual(["accessToken", "expiresIn", "session", "tokenType", "userId"]);
    expect(body.session).toBe("cookie");
    expect(JSON.stringify(body)).not.toContain("kith_rt_");
    expect(cookie).toMatch(/^kith_session=kith_rt_[A-Za-z0-9_-]+$/);
    const attributes = sessionSetCookie(res)!.split(";").slice(1).map((a) => a.trim());
    expect(attributes.sort()).toEqual(["HttpOnly", "Max-Age=2592000", "Path=/auth/session", "SameSite=Strict"]);
    expect((await node.request("/api/svc", bearer(body.accessToken))).status).toBe(200);
  });

  test("Secure whenever the node's public URL is https", async () => {
    node = bootTestApp({ auth: { ownerEmail: OWNER }, publicUrl: "https://kith.example.com" });
    const { res } = await cookieSignIn(node);
    expect(sessionSetCookie(res)).toContain("; Secure");
  });

  test("without the header, sign-in answers SPEC's TokenPair and sets no session cookie", async () => {
    node = bootTestApp({ auth: { ownerEmail: OWNER } });
    await postJson(node, "/auth/email/send", { email: OWNER });
    const res = await postJson(node, "/auth/email/verify", { email: OWNER, code: await mailedCode(node) });
    expect(sessionSetCookie(res)).toBeNull();
    expect((await json(res)).refreshToken).toMatch(/^kith_rt_/);
  });

  test("refresh rotates the cookie and answers a working access token; the spent cookie later revokes the session", async () => {
    node = bootTestApp({ auth: { ownerEmail: OWNER } });
    const { cookie: first } = await cookieSignIn(node);
    const res = await session("refresh", first);
    expect(res.status).toBe(200);
    expect(res.headers.get("cache-control")).toBe("no-store");
    const second = cookieOf(res);
    expect(second).toMatch(/^kith_session=kith_rt_/);
    expect(second).not.toBe(first);
    const body = await json(res);
    expect(body.session).toBe("cookie");
    expect((await node.request("/api/svc", bearer(body.accessToken))).status).toBe(200);
    // Two tabs within the grace share the successor (owner-sign-in.md); after it, reuse is theft.
    expect(cookieOf(await session("refresh", first))).toBe(second);
    node.clock.advance(31_000);
    const reused = await session("refresh", first);
    expect(reused.status).toBe(401);
    expect(sessionSetCookie(reused)).toContain("kith_session=;");
    expect((await session("refresh", second)).status).toBe(401);
  });

  test("the session endpoints refuse a request without the header (a cross-site form cannot send it) and one without a cookie", async () => {
    node = bootTestApp({ auth: { ownerEmail: OWNER } });
    const { cookie } = await cookieSignIn(node);
    for (const path of ["refresh", "logout"] as const) {
      for (const headers of [{}, { "x-kith-session": "1" }, { "content-type": "application/x-www-form-urlencoded" }] as Array<Record<string, string>>) {
        const res = await session(path, cookie, headers);
        expect({ path, headers, status: res.status }).toEqual({ path, headers, status: 400 });
        expect((await json(res)).error).toBe("invalid_input");
      }
    }
    // The cookie still works: nothing above spent it.
    const none = await session("refresh", null);
    expect(none.status).toBe(401);
    expect((await json(none)).error).toBe("unauthorized");
    for (const bad of ["kith_session=", "kith_session=not a token", `kith_session=${"a".repeat(300)}`, "other=x"]) expect((await session("refresh", bad)).status).toBe(401);
    expect((await session("refresh", cookie)).status).toBe(200);
  });

  test("logout revokes the session and clears the cookie; the cookie no longer refreshes", async () => {
    node = bootTestApp({ auth: { ownerEmail: OWNER } });
    const { cookie } = await cookieSignIn(node);
    const out = await session("logout", cookie);
    expect(out.status).toBe(200);
    expect(await json(out)).toEqual({ loggedOut: true });
    expect(sessionSetCookie(out)).toMatch(/^kith_session=; Path=\/auth\/session; Max-Age=0; HttpOnly; SameSite=Strict/);
    expect((await session("refresh", cookie)).status).toBe(401);
    expect((await session("logout", null)).status).toBe(200);
  });

  test("an OAuth sign-in in cookie mode (the console's provider buttons) sets the same cookie, and it refreshes", async () => {
    const redirect = "https://alice.example.com/console";
    const verifier = "console-verifier-0123456789-0123456789-0123456789";
    fake = await startFakeOidc({ clientId: "google-client", clientSecret: "google-secret", pkce: true, authMethods: ["client_secret_basic"], now: () => node.clock.now() });
    node = bootTestApp({ auth: { ownerEmail: OWNER, redirectUris: [redirect], google: { issuer: fake.url, clientId: "google-client", clientSecret: "google-secret", subject: null } } });
    fake.next = { sub: "g-1", email: OWNER, email_verified: true };
    const q = new URLSearchParams({ redirect_uri: redirect, state: "state-console-1", code_challenge: s256Challenge(verifier), mode: "json" });
    const { url } = await json(await node.request(`/auth/google/authorize?${q}`));
    const back = await visitProvider(url);
    const res = await postJson(node, "/auth/google/callback", { code: back.code, state: back.state, redirect_uri: redirect, code_verifier: verifier }, { headers: COOKIE });
    expect(res.status).toBe(200);
    expect((await json(res)).session).toBe("cookie");
    expect((await session("refresh", cookieOf(res))).status).toBe(200);
  });
});
