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

/** A token like the node's, with any claim, header member or key changed; `omit` drops claims. */
async function craft(options: { key?: Uint8Array; claims?: Record<string, unknown>; header?: Record<string, unknown>; omit?: string[] } = {}): Promise<string> {
  const iat = Math.floor(node.clock.now() / 1000);
  const claims: Record<string, unknown> = { iss: node.publicUrl, aud: ownerAudience(node.publicUrl), sub: "owner", sid: "S1", amr: ["email"], jti: "J1", iat, exp: iat + 900, ...options.claims };
  for (const name of options.omit ?? []) delete claims[name];
  return new SignJWT(claims)
    .setProtectedHeader({ alg: "HS256", typ: "at+jwt", ...options.header })
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

  test("the Bearer scheme is case-insensitive, one or more spaces before the token (RFC 9110 §11.1)", async () => {
    boot();
    const token = await craft();
    for (const scheme of ["Bearer ", "bearer ", "BEARER ", "bEaReR ", "Bearer   "]) {
      expect({ scheme, status: (await node.request("/api/svc", { headers: { authorization: `${scheme}${token}` } })).status }).toEqual({ scheme, status: 200 });
    }
    await expect401(await node.request("/api/svc", { headers: { authorization: `Bearer${token}` } }));
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
    await expect401(await node.request("/api/svc", bearer(await craft({ claims: { aud: "kith-owner:https://other.example.com" } }))));
  });

  test("wrong issuer, wrong subject or wrong type → 401", async () => {
    boot();
    await expect401(await node.request("/api/svc", bearer(await craft({ claims: { iss: "https://other.example.com" } }))));
    await expect401(await node.request("/api/svc", bearer(await craft({ claims: { sub: "mallory" } }))));
    await expect401(await node.request("/api/svc", bearer(await craft({ header: { typ: "JWT" } }))));
  });

  test("a token from another node (other secret, same claims) → 401", async () => {
    boot();
    const other = createOwnerTokens({ key: deriveKey(new Uint8Array(32).fill(1), "owner-jwt"), publicUrl: node.publicUrl, now: node.clock.now });
    await expect401(await node.request("/api/svc", bearer(await other.sign({ sessionId: "S", method: "email", tokenId: "J" }))));
  });

  test("the node's own key does not make any token good: only the lifetime and shape the node issues pass (issue 12)", async () => {
    boot();
    const now = Math.floor(node.clock.now() / 1000);
    const refused: Array<[string, Parameters<typeof craft>[0]]> = [
      ["iat in the future beyond the 5 s skew", { claims: { iat: now + 60, exp: now + 60 + 900 } }],
      ["iat a year ahead", { claims: { iat: now + 365 * 86400, exp: now + 365 * 86400 + 900 } }],
      ["exp years ahead", { claims: { exp: now + 5 * 365 * 86400 } }],
      ["a lifetime one second over 15 minutes", { claims: { exp: now + 901 } }],
      ["exp not after iat", { claims: { exp: now } }],
      ["an old iat with a fresh exp (lifetime over 15 minutes)", { claims: { iat: now - 3600, exp: now + 60 } }],
      ["iat not an integer", { claims: { iat: now + 0.5, exp: now + 900 } }],
      ["iat as a string", { claims: { iat: String(now) } }],
      ["missing iat", { omit: ["iat"] }],
      ["missing exp", { omit: ["exp"] }],
      ["missing jti", { omit: ["jti"] }],
      ["missing sid", { omit: ["sid"] }],
      ["missing amr", { omit: ["amr"] }],
      ["nbf (the node never sets it), even in the past", { claims: { nbf: now - 10 } }],
      ["a claim the node never issues", { claims: { scope: "admin" } }],
      ["aud as an array holding the audience", { claims: { aud: [ownerAudience(node.publicUrl), "other"] } }],
      ["amr with two methods", { claims: { amr: ["email", "google"] } }],
      ["amr empty", { claims: { amr: [] } }],
      ["amr not an array", { claims: { amr: "email" } }],
      ["empty sid", { claims: { sid: "" } }],
      ["a header member the node never sets (kid)", { header: { kid: "k1" } }],
      ["a header member the node never sets (jku)", { header: { jku: "https://evil.example.com/jwks" } }],
    ];
    for (const [what, options] of refused) {
      const res = await node.request("/api/svc", bearer(await craft(options)));
      expect({ what, status: res.status }).toEqual({ what, status: 401 });
    }
    // Within the skew, and a token issued a moment ago with the full lifetime, are the node's own.
    for (const claims of [{ iat: now + 5, exp: now + 5 + 900 }, { iat: now - 60, exp: now - 60 + 900 }]) {
      expect((await node.request("/api/svc", bearer(await craft({ claims })))).status).toBe(200);
    }
  });

  test("a token the node issued while its clock ran ahead is refused once the clock is right again", async () => {
    boot();
    node.clock.advance(24 * 3600 * 1000);
    const { accessToken } = await signInByEmail(node);
    node.clock.advance(-24 * 3600 * 1000);
    await expect401(await node.request("/api/svc", bearer(accessToken)));
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
