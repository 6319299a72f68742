import { afterEach, describe, expect, test } from "bun:test";
import { bootTestApp, type TestNode } from "../helpers/boot.ts";
import { bearer, OWNER, postJson, signInByEmail } from "../helpers/owner.ts";
import { json } from "../helpers/process.ts";

/** The session endpoints every sign-in method shares: refresh (rotation, reuse, the two-tab grace) and logout. */
let node: TestNode;
afterEach(() => node?.close());
const boot = () => (node = bootTestApp({ auth: { ownerEmail: OWNER } }));
const refresh = (refreshToken: string) => postJson(node, "/auth/refresh", { refreshToken });

describe("refresh and logout", () => {
  test("refresh rotates: a new pair, the new access token works, the old refresh token is spent", async () => {
    boot();
    const first = await signInByEmail(node);
    const res = await refresh(first.refreshToken);
    expect(res.status).toBe(200);
    expect(res.headers.get("cache-control")).toBe("no-store");
    const second = await json(res);
    expect(second.refreshToken).not.toBe(first.refreshToken);
    expect((await node.request("/api/svc", bearer(second.accessToken))).status).toBe(200);
    const third = await refresh(second.refreshToken);
    expect(third.status).toBe(200);
  });

  test("two tabs refreshing with the same token at once both get the same new refresh token, and the session lives on (issue 21)", async () => {
    boot();
    const first = await signInByEmail(node);
    const [a, b] = await Promise.all([1, 2].map(() => refresh(first.refreshToken)));
    expect([a!.status, b!.status]).toEqual([200, 200]);
    const [pairA, pairB] = [await json(a!), await json(b!)];
    expect(pairB.refreshToken).toBe(pairA.refreshToken);
    for (const pair of [pairA, pairB]) expect((await node.request("/api/svc", bearer(pair.accessToken))).status).toBe(200);
    // Either tab refreshes on with it; the family was not revoked, and it did not branch.
    const third = await refresh(pairB.refreshToken);
    expect(third.status).toBe(200);
    expect(node.db.$client.query("SELECT revoked_at FROM owner_sessions").all()).toEqual([{ revoked_at: null }]);
    expect(node.db.$client.query("SELECT count(*) AS n FROM refresh_tokens WHERE spent_at IS NULL").get()).toEqual({ n: 1 });
  });

  test("refresh reuse: within 30 s a just-spent token answers its successor; from 30 s + 1 ms → 401 and the whole family is revoked", async () => {
    boot();
    const first = await signInByEmail(node);
    const second = await json(await refresh(first.refreshToken));
    node.clock.advance(30_000);
    const late = await refresh(first.refreshToken);
    expect(late.status).toBe(200);
    expect((await json(late)).refreshToken).toBe(second.refreshToken);
    node.clock.advance(1);
    const reuse = await refresh(first.refreshToken);
    expect(reuse.status).toBe(401);
    expect(await json(reuse)).toEqual({ error: "unauthorized", message: "the refresh token is not valid; sign in again" });
    // the legitimate successor dies with its family
    expect((await refresh(second.refreshToken)).status).toBe(401);
    expect(node.logLines.some((l) => l.msg === "a spent refresh token was presented again; its session is revoked")).toBe(true);
    // another session is untouched
    const other = await signInByEmail(node);
    expect((await refresh(other.refreshToken)).status).toBe(200);
  });

  test("the grace never outlives a revocation: a copy used after its successor was spent, or after logout, gets nothing", async () => {
    boot();
    const first = await signInByEmail(node);
    const second = await json(await refresh(first.refreshToken));
    const third = await json(await refresh(second.refreshToken));
    // The first token again, within its grace, but its successor is spent already: a copy is in use.
    expect((await refresh(first.refreshToken)).status).toBe(401);
    expect((await refresh(third.refreshToken)).status).toBe(401);

    const other = await signInByEmail(node);
    const rotated = await json(await refresh(other.refreshToken));
    expect((await postJson(node, "/auth/logout", { refreshToken: rotated.refreshToken })).status).toBe(200);
    expect((await refresh(other.refreshToken)).status).toBe(401);
  });

  test("unknown, malformed and expired refresh tokens → 401; refresh tokens are stored hashed", async () => {
    boot();
    const pair = await signInByEmail(node);
    expect(JSON.stringify(node.db.$client.query("SELECT * FROM refresh_tokens").all())).not.toContain(pair.refreshToken.slice(8));
    expect((await refresh("kith_rt_nope")).status).toBe(401);
    expect((await refresh("garbage")).status).toBe(401);
    node.clock.advance(30 * 24 * 3600 * 1000);
    expect((await refresh(pair.refreshToken)).status).toBe(401);
  });

  test("a refresh or logout body without a string refreshToken → 400 naming refreshToken", async () => {
    boot();
    for (const path of ["/auth/refresh", "/auth/logout"]) {
      for (const body of [{}, { refreshToken: 5 }, { refreshToken: "x".repeat(257) }, []]) {
        const res = await postJson(node, path, body);
        expect({ path, body, status: res.status }).toEqual({ path, body, status: 400 });
        const err = await json(res);
        expect(err.error).toBe("invalid_input");
        expect(err.message).toMatch(Array.isArray(body) ? /body: a JSON object is expected, not an array/ : /refreshToken: a string of at most 256 characters is required/);
      }
    }
    const form = await node.request("/auth/refresh", { method: "POST", headers: { "content-type": "application/x-www-form-urlencoded" }, body: "grant_type=refresh_token" });
    expect(form.status).toBe(400);
    expect((await json(form)).message).toMatch(/refreshToken: a string/);
  });

  test("logout ends the session's refresh tokens; unknown tokens answer the same; the access token lives out its 15 minutes", async () => {
    boot();
    const pair = await signInByEmail(node);
    const out = await postJson(node, "/auth/logout", { refreshToken: pair.refreshToken });
    expect(out.status).toBe(200);
    expect(await json(out)).toEqual({ loggedOut: true });
    expect((await refresh(pair.refreshToken)).status).toBe(401);
    const unknown = await postJson(node, "/auth/logout", { refreshToken: "kith_rt_unknown" });
    expect(unknown.status).toBe(200);
    expect(await json(unknown)).toEqual({ loggedOut: true });
    expect((await node.request("/api/svc", bearer(pair.accessToken))).status).toBe(200); // stateless by design (README)
    node.clock.advance(15 * 60 * 1000 + 6000);
    expect((await node.request("/api/svc", bearer(pair.accessToken))).status).toBe(401);
  });

  test("as an OAuth token endpoint (form body) /auth/refresh answers RFC 6749 shapes; /auth/logout takes RFC 7009 form", async () => {
    boot();
    const pair = await signInByEmail(node);
    const form = (path: string, body: Record<string, string>) =>
      node.request(path, { method: "POST", headers: { "content-type": "application/x-www-form-urlencoded" }, body: new URLSearchParams(body).toString() });
    const res = await form("/auth/refresh", { grant_type: "refresh_token", refresh_token: pair.refreshToken });
    expect(res.status).toBe(200);
    const tokens = await json(res);
    expect(Object.keys(tokens).sort()).toEqual(["access_token", "expires_in", "refresh_token", "token_type"]);
    expect((await node.request("/api/svc", bearer(tokens.access_token))).status).toBe(200);
    node.clock.advance(30_001); // past the reuse grace
    const bad = await form("/auth/refresh", { grant_type: "refresh_token", refresh_token: pair.refreshToken });
    expect(bad.status).toBe(400);
    expect((await json(bad)).error).toBe("invalid_grant");
    const fresh = await signInByEmail(node);
    expect((await form("/auth/logout", { token: fresh.refreshToken })).status).toBe(200);
    expect((await refresh(fresh.refreshToken)).status).toBe(401);
  });
});
