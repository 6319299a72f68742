import { afterEach, describe, expect, test } from "bun:test";
import { exportPKCS8, generateKeyPair } from "jose";
import { s256Challenge } from "../../src/security/pkce.ts";
import type { AuthOptions } from "../../src/node/sign-in.ts";
import { bootTestApp, type TestNode } from "../helpers/boot.ts";
import { startFakeOidc, visitProvider, type FakeOidc } from "../helpers/fake-oidc.ts";
import { bearer, OWNER, postJson } from "../helpers/owner.ts";
import { json } from "../helpers/process.ts";

const REDIRECT = "https://console.alice.example.com/callback";
const VERIFIER = "client-verifier-0123456789-0123456789-0123456789";
const NOT_ACCEPTED = { error: "invalid_input", message: "the provider did not confirm the owner's identity" };

let node: TestNode;
let fake: FakeOidc;
afterEach(() => {
  node?.close();
  fake?.stop();
});

async function bootGoogle(extra: Partial<AuthOptions> = {}, google: Partial<NonNullable<AuthOptions["google"]>> = {}) {
  let now = () => Date.parse("2026-06-01T12:00:00.000Z");
  fake = await startFakeOidc({ clientId: "google-client", clientSecret: "google-secret", pkce: true, authMethods: ["client_secret_basic", "client_secret_post"], now: () => now() });
  node = bootTestApp({ auth: { ownerEmail: OWNER, redirectUris: [REDIRECT], google: { issuer: fake.url, clientId: "google-client", clientSecret: "google-secret", subject: null, ...google }, ...extra } });
  now = node.clock.now;
}

async function bootGoogleWithIss() {
  let now = () => Date.parse("2026-06-01T12:00:00.000Z");
  fake = await startFakeOidc({ clientId: "google-client", clientSecret: "google-secret", pkce: true, authMethods: ["client_secret_basic"], issParameter: true, now: () => now() });
  node = bootTestApp({ auth: { ownerEmail: OWNER, redirectUris: [REDIRECT], google: { issuer: fake.url, clientId: "google-client", clientSecret: "google-secret", subject: null } } });
  now = node.clock.now;
}

async function bootApple(subject: string | null = null) {
  let now = () => Date.parse("2026-06-01T12:00:00.000Z");
  const key = await generateKeyPair("ES256", { extractable: true });
  fake = await startFakeOidc({ clientId: "com.example.kith", pkce: false, authMethods: ["client_secret_post"], appleKey: { publicKey: key.publicKey, teamId: "TEAM123", keyId: "KEY456" }, now: () => now() });
  const privateKeyPem = await exportPKCS8(key.privateKey);
  node = bootTestApp({ auth: { ownerEmail: OWNER, redirectUris: [REDIRECT], apple: { issuer: fake.url, clientId: "com.example.kith", teamId: "TEAM123", keyId: "KEY456", privateKeyPem, subject } } });
  now = node.clock.now;
}

/** The authorize URL a client builds; it carries the PKCE challenge of VERIFIER unless `code_challenge` is given (undefined: none). */
function authorizeUrl(provider: string, params: Record<string, string | undefined>): string {
  const q = new URLSearchParams(Object.entries({ code_challenge: s256Challenge(VERIFIER), ...params }).filter((e): e is [string, string] => e[1] !== undefined));
  return `/auth/${provider}/authorize?${q}`;
}

/** The whole flow as a client would run it: authorize (json), the provider, the callback. */
async function signIn(provider: "google" | "apple", options: { state?: string; verifier?: string | null; callback?: Record<string, unknown> } = {}) {
  const state = options.state ?? `state-${crypto.randomUUID()}`;
  const verifier = options.verifier === undefined ? VERIFIER : options.verifier;
  const res = await node.request(authorizeUrl(provider, { redirect_uri: REDIRECT, state, code_challenge: verifier ? s256Challenge(verifier) : undefined, mode: "json" }));
  expect(res.status).toBe(200);
  const { url } = await json(res);
  const back = await visitProvider(url);
  expect(back.state).toBe(state);
  expect(back.redirectTo).toBe(REDIRECT);
  const body = { code: back.code, state: back.state, redirect_uri: REDIRECT, ...(back.iss ? { iss: back.iss } : {}), ...(verifier ? { code_verifier: verifier } : {}), ...options.callback };
  return { res: await postJson(node, `/auth/${provider}/callback`, body), body, state };
}

/** The whole flow ends in the one answer for anyone but the owner. */
async function expectNotAccepted(provider: "google" | "apple", options: Parameters<typeof signIn>[1] = {}) {
  const { res } = await signIn(provider, options);
  expect(res.status).toBe(400);
  expect(await json(res)).toEqual(NOT_ACCEPTED);
}

describe("Google sign-in (against a fake provider on loopback)", () => {
  test("the owner (verified email) signs in end to end with PKCE and calls GET /api/svc", async () => {
    await bootGoogle();
    fake.next = { sub: "g-123", email: OWNER, email_verified: true };
    const { res } = await signIn("google");
    expect(res.status).toBe(200);
    const pair = await json(res);
    expect(pair).toMatchObject({ tokenType: "Bearer", userId: "owner" });
    expect((await node.request("/api/svc", bearer(pair.accessToken))).status).toBe(200);
    // The provider saw the node's own PKCE challenge (not the client's), a nonce and the OpenID scopes.
    const seen = fake.authorizations[0]!;
    expect(seen.get("code_challenge_method")).toBe("S256");
    expect(seen.get("code_challenge")).not.toBe(s256Challenge(VERIFIER));
    expect(seen.get("nonce")).toBeTruthy();
    expect(seen.get("scope")).toBe("openid email");
    expect(fake.tokenRequests[0]!.get("code_verifier")).toBeTruthy();
  });

  test("mode=redirect (the default) answers 302 to the provider", async () => {
    await bootGoogle();
    const res = await node.request(authorizeUrl("google", { redirect_uri: REDIRECT, state: "state-redirect-1" }));
    expect(res.status).toBe(302);
    const location = new URL(res.headers.get("location")!);
    expect(`${location.origin}${location.pathname}`).toBe(`${fake.url}/authorize`);
    expect(location.searchParams.get("state")).toBe("state-redirect-1");
    expect(location.searchParams.get("redirect_uri")).toBe(REDIRECT);
    expect(location.searchParams.get("client_id")).toBe("google-client");
  });

  test("the owner by configured subject (KITH_GOOGLE_SUBJECT), whatever the email", async () => {
    await bootGoogle({}, { subject: "g-owner" });
    fake.next = { sub: "g-owner", email: "someone-else@gmail.com", email_verified: true };
    expect((await signIn("google")).res.status).toBe(200);
  });

  test("with KITH_GOOGLE_SUBJECT set, another account holding the owner's verified email is refused (issue 21)", async () => {
    await bootGoogle({}, { subject: "g-owner" });
    fake.next = { sub: "g-attacker", email: OWNER, email_verified: true };
    await expectNotAccepted("google");
  });

  test("RFC 9207: an iss naming another issuer is refused; a provider that promises iss must send it (mix-up defence)", async () => {
    await bootGoogleWithIss();
    fake.next = { sub: "g-1", email: OWNER, email_verified: true };
    const withIss = await signIn("google");
    expect(withIss.body.iss).toBe(fake.url);
    expect(withIss.res.status).toBe(200);
    for (const iss of [undefined, "https://evil.example.com"]) {
      const { res } = await signIn("google", { callback: { iss } });
      expect({ iss, status: res.status }).toEqual({ iss, status: 400 });
      expect(await json(res)).toEqual(NOT_ACCEPTED);
    }
    expect(fake.tokenRequests).toHaveLength(1); // only the good one reached the token endpoint
  });

  test("RFC 9207 with a provider that does not promise iss: none is fine, a wrong one is refused", async () => {
    await bootGoogle();
    fake.next = { sub: "g-1", email: OWNER, email_verified: true };
    expect((await signIn("google")).res.status).toBe(200);
    const { res } = await signIn("google", { callback: { iss: "https://evil.example.com" } });
    expect(res.status).toBe(400);
  });

  test("provider identity that is not the owner → 400, the same answer as a refused code", async () => {
    await bootGoogle({}, { subject: "g-owner" });
    fake.next = { sub: "g-mallory", email: "mallory@gmail.com", email_verified: true };
    await expectNotAccepted("google");
  });

  test("the owner's email but not verified by the provider → 400", async () => {
    await bootGoogle();
    fake.next = { sub: "g-999", email: OWNER, email_verified: false };
    await expectNotAccepted("google");
  });

  test("a code the provider refuses → 400", async () => {
    await bootGoogle();
    fake.next = { sub: "g-1", email: OWNER, email_verified: true };
    await expectNotAccepted("google", { callback: { code: "code-that-was-never-issued" } });
  });

  test("ID tokens that do not verify → 400: other signing key, wrong audience, wrong issuer, wrong nonce, expired", async () => {
    await bootGoogle();
    fake.next = { sub: "g-1", email: OWNER, email_verified: true };
    for (const tamper of [{ otherKey: true }, { aud: "someone-else" }, { iss: "https://evil.example.com" }, { nonce: "replayed-nonce" }, { expired: true }]) {
      const state = `state-tamper-${Object.keys(tamper)[0]}`;
      const res = await node.request(authorizeUrl("google", { redirect_uri: REDIRECT, state, mode: "json" }));
      const back = await visitProvider((await json(res)).url);
      fake.tamper = tamper;
      const cb = await postJson(node, "/auth/google/callback", { code: back.code, state, redirect_uri: REDIRECT, code_verifier: VERIFIER });
      expect({ tamper, status: cb.status }).toEqual({ tamper, status: 400 });
      expect(await json(cb)).toEqual(NOT_ACCEPTED);
    }
  });

  test("state mismatch → 400: unknown state, reused state, another provider's state, another redirect_uri, expired state", async () => {
    await bootGoogle();
    fake.next = { sub: "g-1", email: OWNER, email_verified: true };
    const unknown = await postJson(node, "/auth/google/callback", { code: "x", state: "never-issued-state", redirect_uri: REDIRECT, code_verifier: VERIFIER });
    expect(unknown.status).toBe(400);
    expect((await json(unknown)).message).toContain("state");

    const { res, body } = await signIn("google");
    expect(res.status).toBe(200);
    const reused = await postJson(node, "/auth/google/callback", body);
    expect(reused.status).toBe(400);
    expect((await json(reused)).message).toContain("state");

    const start = await node.request(authorizeUrl("google", { redirect_uri: REDIRECT, state: "state-other-provider", mode: "json" }));
    const back = await visitProvider((await json(start)).url);
    const otherProvider = await postJson(node, "/auth/apple/callback", { code: back.code, state: back.state, redirect_uri: REDIRECT, code_verifier: VERIFIER });
    expect(otherProvider.status).toBe(404); // apple is not configured here; with both configured the state check says 400 (apple test)

    const start2 = await node.request(authorizeUrl("google", { redirect_uri: REDIRECT, state: "state-other-redirect", mode: "json" }));
    const back2 = await visitProvider((await json(start2)).url);
    const otherRedirect = await postJson(node, "/auth/google/callback", { code: back2.code, state: back2.state, redirect_uri: "https://evil.example.com/cb", code_verifier: VERIFIER });
    expect(otherRedirect.status).toBe(400);
    // single use: the state is spent even by a failed callback
    expect((await postJson(node, "/auth/google/callback", { code: back2.code, state: back2.state, redirect_uri: REDIRECT, code_verifier: VERIFIER })).status).toBe(400);

    const start3 = await node.request(authorizeUrl("google", { redirect_uri: REDIRECT, state: "state-expires", mode: "json" }));
    const back3 = await visitProvider((await json(start3)).url);
    node.clock.advance(10 * 60 * 1000);
    expect((await postJson(node, "/auth/google/callback", { code: back3.code, state: back3.state, redirect_uri: REDIRECT, code_verifier: VERIFIER })).status).toBe(400);
  });

  test("a state can start only one sign-in", async () => {
    await bootGoogle();
    expect((await node.request(authorizeUrl("google", { redirect_uri: REDIRECT, state: "state-once-only", mode: "json" }))).status).toBe(200);
    const again = await node.request(authorizeUrl("google", { redirect_uri: REDIRECT, state: "state-once-only", mode: "json" }));
    expect(again.status).toBe(400);
    expect((await json(again)).message).toContain("state");
  });

  test("PKCE verifier mismatch → 400, and nothing is exchanged at the provider", async () => {
    await bootGoogle();
    fake.next = { sub: "g-1", email: OWNER, email_verified: true };
    const { res } = await signIn("google", { callback: { code_verifier: "another-verifier-0123456789-0123456789-01234567" } });
    expect(res.status).toBe(400);
    expect((await json(res)).message).toContain("code_verifier");
    expect(fake.tokenRequests).toHaveLength(0);
  });

  test("PKCE is required (issue 21): authorize without code_challenge → 400 naming it, nothing stored, the provider never asked", async () => {
    await bootGoogle();
    const res = await node.request(authorizeUrl("google", { redirect_uri: REDIRECT, state: "state-without-pkce", code_challenge: undefined, mode: "json" }));
    expect(res.status).toBe(400);
    const body = await json(res);
    expect(body.error).toBe("invalid_input");
    expect(body.message).toContain("code_challenge");
    expect(node.db.$client.query("SELECT count(*) AS n FROM oauth_states").get()).toEqual({ n: 0 });
    expect(fake.authorizations).toHaveLength(0);
  });

  test("PKCE: someone holding the redirect's code and state but not the verifier cannot finish (none, another, malformed) → 400, nothing exchanged", async () => {
    await bootGoogle();
    fake.next = { sub: "g-1", email: OWNER, email_verified: true };
    for (const code_verifier of [undefined, "another-verifier-0123456789-0123456789-01234567", "short", s256Challenge(VERIFIER)]) {
      const { res } = await signIn("google", { callback: { code_verifier } });
      expect({ code_verifier, status: res.status }).toEqual({ code_verifier, status: 400 });
      expect((await json(res)).message).toContain("code_verifier");
    }
    expect(fake.tokenRequests).toHaveLength(0);
  });

  test("PKCE: a sign-in state stored without a client challenge (before PKCE was required) cannot be finished", async () => {
    await bootGoogle();
    fake.next = { sub: "g-1", email: OWNER, email_verified: true };
    const start = await node.request(authorizeUrl("google", { redirect_uri: REDIRECT, state: "state-legacy-row", mode: "json" }));
    const back = await visitProvider((await json(start)).url);
    node.db.$client.run("UPDATE oauth_states SET client_code_challenge = NULL");
    const res = await postJson(node, "/auth/google/callback", { code: back.code, state: back.state, redirect_uri: REDIRECT, code_verifier: VERIFIER });
    expect(res.status).toBe(400);
    expect((await json(res)).message).toContain("code_verifier");
    expect(fake.tokenRequests).toHaveLength(0);
  });

  test("redirect URI not on the allowlist → 400 at authorize (and nothing is stored)", async () => {
    await bootGoogle();
    for (const redirect of ["https://evil.example.com/callback", `${REDIRECT}/more`, `${REDIRECT}?x=1`, REDIRECT.toUpperCase()]) {
      const res = await node.request(authorizeUrl("google", { redirect_uri: redirect, state: "state-redirect-check", mode: "json" }));
      expect({ redirect, status: res.status }).toEqual({ redirect, status: 400 });
      const body = await json(res);
      expect(body.error).toBe("invalid_input");
    }
    expect(node.db.$client.query("SELECT count(*) AS n FROM oauth_states").get()).toEqual({ n: 0 });
  });

  test("invalid authorize parameters → 400 {error, message}", async () => {
    await bootGoogle();
    const cases: Array<Record<string, string | undefined>> = [
      { state: "state-12345678" },
      { redirect_uri: REDIRECT },
      { redirect_uri: "not a uri", state: "state-12345678" },
      { redirect_uri: REDIRECT, state: "short" },
      { redirect_uri: REDIRECT, state: "state-12345678", code_challenge: "too-short" },
      { redirect_uri: REDIRECT, state: "state-12345678", code_challenge_method: "plain" },
      { redirect_uri: REDIRECT, state: "state-12345678", mode: "popup" },
    ];
    for (const params of cases) {
      const res = await node.request(authorizeUrl("google", params));
      expect({ params, status: res.status }).toEqual({ params, status: 400 });
      expect(Object.keys(await json(res)).sort()).toEqual(["error", "message"]);
    }
    expect((await node.request(authorizeUrl("github", { redirect_uri: REDIRECT, state: "state-12345678" }))).status).toBe(400);
  });

  test("a provider that is not configured → 404; GET /auth/providers lists what is", async () => {
    await bootGoogle();
    expect(await json(await node.request("/auth/providers"))).toEqual({ providers: ["email", "google"] });
    const meta = await json(await node.request("/.well-known/oauth-authorization-server"));
    expect(meta.kith_sign_in.google).toEqual({ authorization_endpoint: "https://alice.example.com/auth/google/authorize", callback_endpoint: "https://alice.example.com/auth/google/callback" });
    expect(meta.kith_sign_in.apple).toBeUndefined();
    const res = await node.request(authorizeUrl("apple", { redirect_uri: REDIRECT, state: "state-12345678" }));
    expect(res.status).toBe(404);
    expect((await json(res)).error).toBe("not_found");
  });

  test("an unreachable or misbehaving provider → 503, and a redirect from its token endpoint is not followed", async () => {
    await bootGoogle();
    fake.next = { sub: "g-1", email: OWNER, email_verified: true };
    fake.tokenStatus = 302;
    const redirected = await signIn("google");
    expect(redirected.res.status).toBe(503);
    fake.tokenStatus = 500;
    expect((await signIn("google")).res.status).toBe(503);
    fake.tokenStatus = null;
    fake.stop();
    node.close();
    node = bootTestApp({ auth: { ownerEmail: OWNER, redirectUris: [REDIRECT], google: { issuer: "http://127.0.0.1:9", clientId: "c", clientSecret: "s", subject: null } } });
    const down = await node.request(authorizeUrl("google", { redirect_uri: REDIRECT, state: "state-12345678" }));
    expect(down.status).toBe(503);
    expect(await json(down)).toEqual({ error: "unavailable", message: "the google sign-in service could not be reached; try again later" });
  });
});

describe("Apple sign-in (against a fake provider on loopback)", () => {
  test("the owner signs in: email scope with form_post, an ES256 client secret, the node's own PKCE towards Apple, email_verified as a string", async () => {
    await bootApple();
    fake.next = { sub: "apple-001", email: OWNER, email_verified: "true" };
    const { res } = await signIn("apple");
    expect(res.status).toBe(200);
    const pair = await json(res);
    expect((await node.request("/api/svc", bearer(pair.accessToken))).status).toBe(200);
    const seen = fake.authorizations[0]!;
    expect(seen.get("response_mode")).toBe("form_post");
    expect(seen.get("scope")).toBe("email");
    // Apple's discovery lists no PKCE, but Apple enforces it once sent: the node sends its own (not the client's).
    expect(seen.get("code_challenge_method")).toBe("S256");
    expect(seen.get("code_challenge")).not.toBe(s256Challenge(VERIFIER));
    expect(s256Challenge(fake.tokenRequests[0]!.get("code_verifier")!)).toBe(seen.get("code_challenge")!);
    expect(fake.tokenRequests[0]!.get("client_secret")!.split(".")).toHaveLength(3);
  });

  test("the owner by configured subject; anyone else → 400", async () => {
    await bootApple("apple-owner");
    fake.next = { sub: "apple-owner" };
    expect((await signIn("apple")).res.status).toBe(200);
    fake.next = { sub: "apple-mallory", email: "mallory@icloud.com", email_verified: "true" };
    await expectNotAccepted("apple");
  });

  test("with KITH_APPLE_SUBJECT set, another Apple ID holding the owner's verified email is refused (issue 21)", async () => {
    await bootApple("apple-owner");
    fake.next = { sub: "apple-attacker", email: OWNER, email_verified: "true" };
    await expectNotAccepted("apple");
  });

  test("a Google state cannot finish an Apple sign-in (state bound to its provider) → 400", async () => {
    await bootApple();
    node.close();
    const appleFake = fake;
    let now = () => Date.parse("2026-06-01T12:00:00.000Z");
    const googleFake = await startFakeOidc({ clientId: "google-client", clientSecret: "google-secret", pkce: true, authMethods: ["client_secret_basic"], now: () => now() });
    const key = await generateKeyPair("ES256", { extractable: true });
    node = bootTestApp({
      auth: {
        ownerEmail: OWNER,
        redirectUris: [REDIRECT],
        google: { issuer: googleFake.url, clientId: "google-client", clientSecret: "google-secret", subject: null },
        apple: { issuer: appleFake.url, clientId: "com.example.kith", teamId: "TEAM123", keyId: "KEY456", privateKeyPem: await exportPKCS8(key.privateKey), subject: null },
      },
    });
    now = node.clock.now;
    try {
      const start = await node.request(authorizeUrl("google", { redirect_uri: REDIRECT, state: "state-for-google", mode: "json" }));
      const back = await visitProvider((await json(start)).url);
      const res = await postJson(node, "/auth/apple/callback", { code: back.code, state: back.state, redirect_uri: REDIRECT, code_verifier: VERIFIER });
      expect(res.status).toBe(400);
      expect((await json(res)).message).toContain("another provider");
    } finally {
      googleFake.stop();
    }
  });
});
