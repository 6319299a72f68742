import { afterEach, describe, expect, test } from "bun:test";
import { Elysia } from "elysia";
import { SignJWT } from "jose";
import { errorHandler } from "../../src/http/plugins/errors.ts";
import { ownerApi } from "../../src/http/surfaces/owner.routes.ts";
import { createJsonLogger } from "../../src/log.ts";
import { deriveKey } from "../../src/security/node-secret.ts";
import { createOwnerTokens, ownerAudience } from "../../src/security/owner-token.ts";
import { bootTestApp, type TestNode } from "../helpers/boot.ts";
import { bearer, OWNER, postJson, signInByEmail } from "../helpers/owner.ts";
import { json } from "../helpers/process.ts";

let node: TestNode;
afterEach(() => node?.close());
const boot = (options: Parameters<typeof bootTestApp>[0] = {}) => (node = bootTestApp({ ...options, auth: { ownerEmail: OWNER } }));

/** A token like the node's, with any claim or key changed. */
async function craft(options: { key?: Uint8Array; aud?: string; iss?: string; exp?: number; typ?: string; sub?: string } = {}): Promise<string> {
  const iat = Math.floor(node.clock.now() / 1000);
  return new SignJWT({ sid: "S1", amr: ["email"] })
    .setProtectedHeader({ alg: "HS256", typ: options.typ ?? "at+jwt" })
    .setIssuer(options.iss ?? node.publicUrl)
    .setAudience(options.aud ?? ownerAudience(node.publicUrl))
    .setSubject(options.sub ?? "owner")
    .setJti("J1")
    .setIssuedAt(iat)
    .setExpirationTime(options.exp ?? iat + 900)
    .sign(options.key ?? deriveKey(node.secret, "owner-jwt"));
}

async function expect401(res: Response, message?: RegExp): Promise<void> {
  expect(res.status).toBe(401);
  expect(res.headers.get("www-authenticate")).toStartWith("Bearer");
  const body = await json(res);
  expect(Object.keys(body).sort()).toEqual(["error", "message"]);
  expect(body.error).toBe("unauthorized");
  if (message) expect(body.message).toMatch(message);
}

describe("owner bearer token on /api/svc", () => {
  test("a crafted token with the node's key and claims is accepted (the baseline for the forgeries below)", async () => {
    boot();
    expect((await node.request("/api/svc", bearer(await craft()))).status).toBe(200);
  });

  test("missing token → 401 with a Bearer challenge", async () => {
    boot();
    await expect401(await node.request("/api/svc"), /required/);
    await expect401(await postJson(node, "/api/svc", { handle: "x" }));
  });

  test("malformed Authorization headers → 401", async () => {
    boot();
    for (const header of ["Bearer", "Bearer ", "Basic abc", "bearer x y", "Token abc", "Bearer a\tb"]) {
      await expect401(await node.request("/api/svc", { headers: { authorization: header } }));
    }
    await expect401(await node.request("/api/svc", bearer("not.a.jwt")), /invalid or expired/);
  });

  test("forged token (signed with another key) → 401", async () => {
    boot();
    await expect401(await node.request("/api/svc", bearer(await craft({ key: new Uint8Array(32).fill(7) }))), /invalid or expired/);
  });

  test("tampered token (payload changed, signature kept) → 401", async () => {
    boot();
    const { accessToken } = await signInByEmail(node);
    const [h, p, s] = accessToken.split(".");
    const payload = JSON.parse(Buffer.from(p!, "base64url").toString());
    payload.exp += 3600;
    const tampered = `${h}.${Buffer.from(JSON.stringify(payload)).toString("base64url")}.${s}`;
    await expect401(await node.request("/api/svc", bearer(tampered)));
    // and the genuine one still works
    expect((await node.request("/api/svc", bearer(accessToken))).status).toBe(200);
  });

  test("alg=none token → 401", async () => {
    boot();
    const enc = (o: object) => Buffer.from(JSON.stringify(o)).toString("base64url");
    const iat = Math.floor(node.clock.now() / 1000);
    const unsigned = `${enc({ alg: "none", typ: "at+jwt" })}.${enc({ iss: node.publicUrl, aud: ownerAudience(node.publicUrl), sub: "owner", sid: "S", amr: ["email"], jti: "J", iat, exp: iat + 900 })}.`;
    await expect401(await node.request("/api/svc", bearer(unsigned)));
  });

  test("expired token (15 minutes) → 401; one second before, still accepted", async () => {
    boot();
    const { accessToken } = await signInByEmail(node);
    node.clock.advance(15 * 60 * 1000 - 1000);
    expect((await node.request("/api/svc", bearer(accessToken))).status).toBe(200);
    node.clock.advance(1000 + 5000); // past exp and the 5 s leeway
    await expect401(await node.request("/api/svc", bearer(accessToken)));
  });

  test("wrong audience → 401", async () => {
    boot();
    await expect401(await node.request("/api/svc", bearer(await craft({ aud: "kith-owner:https://other.example.com" }))));
  });

  test("wrong issuer, wrong subject or wrong type → 401", async () => {
    boot();
    await expect401(await node.request("/api/svc", bearer(await craft({ iss: "https://other.example.com" }))));
    await expect401(await node.request("/api/svc", bearer(await craft({ sub: "mallory" }))));
    await expect401(await node.request("/api/svc", bearer(await craft({ typ: "JWT" }))));
  });

  test("a token from another node (other secret, same claims) → 401", async () => {
    boot();
    const other = createOwnerTokens({ key: deriveKey(new Uint8Array(32).fill(1), "owner-jwt"), publicUrl: node.publicUrl, now: node.clock.now });
    await expect401(await node.request("/api/svc", bearer(await other.sign({ sessionId: "S", method: "email", tokenId: "J" }))));
  });

  test("the plugin is reusable: any route group built on ownerApi() is protected the same way", async () => {
    boot();
    const tokens = createOwnerTokens({ key: deriveKey(node.secret, "owner-jwt"), publicUrl: node.publicUrl, now: node.clock.now });
    const log = createJsonLogger({ level: "silent" });
    const app = new Elysia()
      .use(errorHandler(log))
      .use(ownerApi(tokens).get("/inbox", ({ actor }) => ({ actor })))
      .use(ownerApi(tokens).get("/rules", ({ actor }) => ({ actor })));
    for (const path of ["/api/svc/inbox", "/api/svc/rules"]) {
      await expect401(await app.handle(new Request(`http://localhost${path}`)));
      const ok = await app.handle(new Request(`http://localhost${path}`, bearer(await craft())));
      expect(await json(ok)).toEqual({ actor: { kind: "owner", subject: "owner" } });
    }
  });
});

describe("refresh and logout", () => {
  test("refresh rotates: a new pair, the new access token works, the old refresh token is spent", async () => {
    boot();
    const first = await signInByEmail(node);
    const res = await postJson(node, "/auth/refresh", { refreshToken: first.refreshToken });
    expect(res.status).toBe(200);
    expect(res.headers.get("cache-control")).toBe("no-store");
    const second = await json(res);
    expect(second.refreshToken).not.toBe(first.refreshToken);
    expect((await node.request("/api/svc", bearer(second.accessToken))).status).toBe(200);
    const third = await postJson(node, "/auth/refresh", { refreshToken: second.refreshToken });
    expect(third.status).toBe(200);
  });

  test("refresh reuse: presenting a spent token → 401 and the whole family is revoked", async () => {
    boot();
    const first = await signInByEmail(node);
    const second = await json(await postJson(node, "/auth/refresh", { refreshToken: first.refreshToken }));
    const reuse = await postJson(node, "/auth/refresh", { refreshToken: first.refreshToken });
    expect(reuse.status).toBe(401);
    expect(await json(reuse)).toEqual({ error: "unauthorized", message: "the refresh token is not valid; sign in again" });
    // the legitimate successor dies with its family
    expect((await postJson(node, "/auth/refresh", { refreshToken: second.refreshToken })).status).toBe(401);
    expect(node.logLines.some((l) => l.msg === "a spent refresh token was presented again; its session is revoked")).toBe(true);
    // another session is untouched
    const other = await signInByEmail(node);
    expect((await postJson(node, "/auth/refresh", { refreshToken: other.refreshToken })).status).toBe(200);
  });

  test("unknown, malformed and expired refresh tokens → 401; refresh tokens are stored hashed", async () => {
    boot();
    const pair = await signInByEmail(node);
    expect(JSON.stringify(node.db.$client.query("SELECT * FROM refresh_tokens").all())).not.toContain(pair.refreshToken.slice(8));
    expect((await postJson(node, "/auth/refresh", { refreshToken: "kith_rt_nope" })).status).toBe(401);
    expect((await postJson(node, "/auth/refresh", { refreshToken: "garbage" })).status).toBe(401);
    node.clock.advance(30 * 24 * 3600 * 1000);
    expect((await postJson(node, "/auth/refresh", { refreshToken: pair.refreshToken })).status).toBe(401);
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
    expect((await postJson(node, "/auth/refresh", { refreshToken: pair.refreshToken })).status).toBe(401);
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
    const bad = await form("/auth/refresh", { grant_type: "refresh_token", refresh_token: pair.refreshToken });
    expect(bad.status).toBe(400);
    expect((await json(bad)).error).toBe("invalid_grant");
    const fresh = await signInByEmail(node);
    expect((await form("/auth/logout", { token: fresh.refreshToken })).status).toBe(200);
    expect((await postJson(node, "/auth/refresh", { refreshToken: fresh.refreshToken })).status).toBe(401);
  });
});

describe("GET and POST /api/svc", () => {
  test("POST /api/svc on a node without an agent creates it (201); a second POST is 409; GET shows it", async () => {
    node = bootTestApp({ agent: false, auth: { ownerEmail: OWNER } });
    const { accessToken } = await signInByEmail(node);
    const none = await node.request("/api/svc", bearer(accessToken));
    expect(none.status).toBe(404);
    expect(await json(none)).toEqual({ error: "not_found", message: "this node has no agent yet: POST /api/svc creates it" });
    const publication = await node.request("/api/svc/discovery", bearer(accessToken));
    expect(await json(publication)).toEqual({ error: "not_found", message: "this node has no agent yet: POST /api/svc creates it" });
    const created = await postJson(node, "/api/svc", { handle: "alice", displayName: "Alice" }, { headers: { authorization: `Bearer ${accessToken}` } });
    expect(created.status).toBe(201);
    const identity = await json(created);
    expect(identity).toMatchObject({ handle: "alice", displayName: "Alice", keySetVersion: 1 });
    expect(identity.agentId).toMatch(/^svc:z6Mk/);
    const got = await json(await node.request("/api/svc", bearer(accessToken)));
    expect(got).toEqual(identity);
    expect((await node.request(`/ink/v1/${encodeURIComponent(identity.agentId)}/agent.json`)).status).toBe(200);
    const again = await postJson(node, "/api/svc", { handle: "other" }, { headers: { authorization: `Bearer ${accessToken}` } });
    expect(again.status).toBe(409);
    expect((await json(again)).error).toBe("conflict");
  });

  test("POST /api/svc validates its body (400) and needs the owner (401)", async () => {
    node = bootTestApp({ agent: false, auth: { ownerEmail: OWNER } });
    const { accessToken } = await signInByEmail(node);
    const auth = { headers: { authorization: `Bearer ${accessToken}` } };
    expect((await postJson(node, "/api/svc", { handle: "Not Valid!" }, auth)).status).toBe(400);
    expect((await postJson(node, "/api/svc", {}, auth)).status).toBe(400);
    expect((await postJson(node, "/api/svc", { handle: "alice" })).status).toBe(401);
    expect(node.vault.exists()).toBe(false);
  });
});
