import { afterEach, describe, expect, test } from "bun:test";
import { s256Challenge } from "../../src/security/pkce.ts";
import { bootTestApp, type TestNode } from "../helpers/boot.ts";
import { startFakeAtproto, type FakeAtproto } from "../helpers/fake-atproto.ts";
import { bearer, OWNER, postJson } from "../helpers/owner.ts";
import { json } from "../helpers/process.ts";

const REDIRECT = "https://console.alice.example.com/callback";
const VERIFIER = "client-verifier-0123456789-0123456789-0123456789";
const DID = "did:plc:ewvi7nxzyoun6zhxrhs64oiz";
const HANDLE = "alice.test";
const NOT_ACCEPTED = { error: "invalid_input", message: "the provider did not confirm the owner's identity" };

let node: TestNode;
let fake: FakeAtproto;
afterEach(() => {
  node?.close();
  fake?.stop();
});

async function boot(owner: string = DID) {
  let current: TestNode | null = null;
  fake = await startFakeAtproto({
    did: DID,
    handle: HANDLE,
    now: () => current!.clock.now(),
    // The authorization server fetches the client metadata from the client_id URL: here, from the node itself.
    clientMetadata: async (clientId) => {
      expect(clientId).toBe("https://alice.example.com/auth/atproto/client-metadata.json");
      return json(await current!.request(new URL(clientId).pathname));
    },
  });
  node = current = bootTestApp({ auth: { ownerEmail: OWNER, redirectUris: [REDIRECT], atproto: { owner, plcUrl: fake.url, handleResolver: fake.url } } });
}

async function start(state = `state-${crypto.randomUUID()}`): Promise<{ code: string; state: string; iss: string }> {
  const res = await node.request(`/auth/atproto/authorize?${new URLSearchParams({ redirect_uri: REDIRECT, state, code_challenge: s256Challenge(VERIFIER), mode: "json" })}`);
  expect(res.status).toBe(200);
  const { url } = await json(res);
  const back = await fetch(url, { redirect: "manual" });
  expect(back.status).toBe(302);
  const location = new URL(back.headers.get("location")!);
  expect(`${location.origin}${location.pathname}`).toBe(REDIRECT);
  return { code: location.searchParams.get("code")!, state: location.searchParams.get("state")!, iss: location.searchParams.get("iss")! };
}

const callback = (body: Record<string, unknown>) => postJson(node, "/auth/atproto/callback", { redirect_uri: REDIRECT, code_verifier: VERIFIER, ...body });

describe("AT Protocol sign-in (against a fake PLC, PDS and authorization server on loopback)", () => {
  test("the owner's DID signs in end to end (PAR, PKCE S256, DPoP with nonce, bound token request) and calls GET /api/svc", async () => {
    await boot();
    const back = await start();
    const res = await callback(back);
    expect(res.status).toBe(200);
    const pair = await json(res);
    expect((await node.request("/api/svc", bearer(pair.accessToken))).status).toBe(200);
    const par = fake.pars[0]!;
    expect(par.form.get("login_hint")).toBe(DID);
    expect(par.form.get("code_challenge")).not.toBe(s256Challenge(VERIFIER)); // the node's own PKCE towards the server
    expect(fake.tokenRequests[0]!.jkt).toBe(par.jkt);
    expect(fake.nonceRetries).toBeGreaterThanOrEqual(1); // the DPoP-Nonce dance happened
  });

  test("the owner configured by handle: resolved to the DID, checked against the DID document, signs in", async () => {
    await boot(HANDLE);
    const res = await callback(await start());
    expect(res.status).toBe(200);
    expect(fake.pars[0]!.form.get("login_hint")).toBe(HANDLE);
  });

  test("a handle the DID document does not claim back is refused before any sign-in starts (503, nothing pushed)", async () => {
    await boot(HANDLE);
    fake.alsoKnownAs = ["at://someone-else.test"];
    const res = await node.request(`/auth/atproto/authorize?${new URLSearchParams({ redirect_uri: REDIRECT, state: "state-12345678", code_challenge: s256Challenge(VERIFIER), mode: "json" })}`);
    expect(res.status).toBe(503);
    expect(fake.pars).toHaveLength(0);
  });

  test("provider identity that is not the owner (another DID signs in) → 400", async () => {
    await boot();
    fake.signInAs = "did:plc:mallory2345mallory2345ab";
    const res = await callback(await start());
    expect(res.status).toBe(400);
    expect(await json(res)).toEqual(NOT_ACCEPTED);
  });

  test("an authorization response from another issuer (iss) → 400", async () => {
    await boot();
    const back = await start();
    const res = await callback({ ...back, iss: "https://evil.example.com" });
    expect(res.status).toBe(400);
    expect(await json(res)).toEqual(NOT_ACCEPTED);
  });

  test("a callback without iss is refused (RFC 9207, issue 21): 400 naming iss, nothing exchanged, the state still usable with iss", async () => {
    await boot();
    const back = await start();
    const { iss, ...withoutIss } = back;
    const res = await callback(withoutIss);
    expect(res.status).toBe(400);
    expect(await json(res)).toEqual({ error: "invalid_input", message: "iss: required for AT Protocol sign-in (the authorization server's iss from the redirect, RFC 9207)" });
    expect(fake.tokenRequests).toHaveLength(0);
    expect((await callback({ ...withoutIss, iss })).status).toBe(200);
  });

  test("a refused code → 400; state mismatch → 400; PKCE verifier mismatch → 400", async () => {
    await boot();
    const back = await start();
    expect(await json(await callback({ ...back, code: "atcode-never" }))).toEqual(NOT_ACCEPTED);
    expect((await callback(back)).status).toBe(400); // the state was spent by the failed attempt
    const unknown = await callback({ ...(await start()), state: "state-not-issued" });
    expect(unknown.status).toBe(400);
    const mismatch = await callback({ ...(await start()), code_verifier: "another-verifier-0123456789-0123456789-01234567" });
    expect(mismatch.status).toBe(400);
    expect((await json(mismatch)).message).toContain("code_verifier");
  });

  test("PKCE is required (issue 21): authorize without code_challenge → 400 before anything is pushed; a callback without the verifier → 400, nothing exchanged", async () => {
    await boot();
    const res = await node.request(`/auth/atproto/authorize?${new URLSearchParams({ redirect_uri: REDIRECT, state: "state-12345678", mode: "json" })}`);
    expect(res.status).toBe(400);
    expect((await json(res)).message).toContain("code_challenge");
    expect(fake.pars).toHaveLength(0);
    const back = await start();
    const stolen = await postJson(node, "/auth/atproto/callback", { redirect_uri: REDIRECT, ...back });
    expect(stolen.status).toBe(400);
    expect((await json(stolen)).message).toContain("code_verifier");
    expect(fake.tokenRequests).toHaveLength(0);
  });

  test("authorize in a loop resolves the owner's DID, PDS and server once per 5 minutes; each start pushes only its own request (issue 21)", async () => {
    await boot();
    const count = (path: string) => fake.paths.filter((p) => p === path).length;
    const backs = [];
    for (let i = 0; i < 5; i++) backs.push(await start());
    expect(fake.pars).toHaveLength(5);
    expect((await callback(backs[4]!)).status).toBe(200);
    expect([count(`/${DID}`), count("/.well-known/oauth-protected-resource"), count("/.well-known/oauth-authorization-server")]).toEqual([1, 1, 1]);
    node.clock.advance(5 * 60 * 1000);
    await start();
    expect([count(`/${DID}`), count("/.well-known/oauth-protected-resource"), count("/.well-known/oauth-authorization-server")]).toEqual([2, 2, 2]);
  });

  test("redirect URI not on the allowlist → 400 before anything is pushed", async () => {
    await boot();
    const res = await node.request(`/auth/atproto/authorize?${new URLSearchParams({ redirect_uri: "https://evil.example.com/cb", state: "state-12345678", code_challenge: s256Challenge(VERIFIER) })}`);
    expect(res.status).toBe(400);
    expect(fake.pars).toHaveLength(0);
  });

  test("the client metadata document describes a public, DPoP-bound web client with the allowlisted redirect URIs", async () => {
    await boot();
    const res = await node.request("/auth/atproto/client-metadata.json");
    expect(res.status).toBe(200);
    expect(await json(res)).toEqual({
      client_id: "https://alice.example.com/auth/atproto/client-metadata.json",
      client_name: "Kith",
      client_uri: "https://alice.example.com",
      application_type: "web",
      grant_types: ["authorization_code"],
      response_types: ["code"],
      scope: "atproto",
      redirect_uris: [REDIRECT],
      token_endpoint_auth_method: "none",
      dpop_bound_access_tokens: true,
    });
    expect(await json(await node.request("/auth/providers"))).toEqual({ providers: ["email", "atproto"] });
  });

  test("without KITH_ATPROTO_OWNER there is no AT Protocol sign-in (404)", async () => {
    node = bootTestApp();
    expect((await node.request("/auth/atproto/client-metadata.json")).status).toBe(404);
    expect((await node.request(`/auth/atproto/authorize?${new URLSearchParams({ redirect_uri: REDIRECT, state: "state-12345678", code_challenge: s256Challenge(VERIFIER) })}`)).status).toBe(404);
  });
});
