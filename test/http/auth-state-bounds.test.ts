import { afterEach, describe, expect, test } from "bun:test";
import { MAX_OAUTH_STATES } from "../../src/domain/owner/sign-in.ts";
import { startMaintenance } from "../../src/jobs/maintenance.ts";
import { s256Challenge } from "../../src/security/pkce.ts";
import { bootTestApp, TEST_REMOTE_HEADER, type TestNode } from "../helpers/boot.ts";
import { startFakeOidc, visitProvider, type FakeOidc } from "../helpers/fake-oidc.ts";
import { OWNER, postJson } from "../helpers/owner.ts";
import { json } from "../helpers/process.ts";

/**
 * Issue 21, from the attacker's side: sign-in state that strangers can make the node write (OAuth
 * states, email codes, limiter rows) is bounded, rate limited per client, and pruned once dead.
 */
const REDIRECT = "https://console.alice.example.com/callback";
const VERIFIER = "client-verifier-0123456789-0123456789-0123456789";

let node: TestNode;
let fake: FakeOidc;
afterEach(() => {
  node?.close();
  fake?.stop();
});

async function boot() {
  let now = () => Date.parse("2026-06-01T12:00:00.000Z");
  fake = await startFakeOidc({ clientId: "google-client", clientSecret: "google-secret", pkce: true, authMethods: ["client_secret_basic"], now: () => now() });
  node = bootTestApp({ auth: { ownerEmail: OWNER, redirectUris: [REDIRECT], google: { issuer: fake.url, clientId: "google-client", clientSecret: "google-secret", subject: null } } });
  now = node.clock.now;
  fake.next = { sub: "g-1", email: OWNER, email_verified: true };
}

const authorize = (state: string, ip: string) =>
  node.request(`/auth/google/authorize?${new URLSearchParams({ redirect_uri: REDIRECT, state, code_challenge: s256Challenge(VERIFIER), mode: "json" })}`, { headers: { [TEST_REMOTE_HEADER]: ip } });
const rows = (table: string) => (node.db.$client.query(`SELECT count(*) AS n FROM ${table}`).get() as { n: number }).n;

describe("OAuth states a stranger creates are bounded (issue 21)", () => {
  test(`authorize in a loop from many addresses: never more than ${MAX_OAUTH_STATES} states; the oldest go, the owner's newest sign-in finishes`, async () => {
    await boot();
    const first = await authorize("state-flood-first", "198.51.100.1");
    const firstBack = await visitProvider((await json(first)).url);
    for (let i = 0; i < MAX_OAUTH_STATES + 50; i++) {
      const res = await authorize(`state-flood-${i}`, `203.0.${Math.floor(i / 10)}.9`); // 10 a minute from each address
      expect(res.status).toBe(200);
    }
    expect(rows("oauth_states")).toBe(MAX_OAUTH_STATES);
    const start = await authorize("state-owner-now", "192.0.2.10");
    const back = await visitProvider((await json(start)).url);
    const done = await postJson(node, "/auth/google/callback", { code: back.code, state: back.state, redirect_uri: REDIRECT, code_verifier: VERIFIER });
    expect(done.status).toBe(200);
    expect(rows("oauth_states")).toBeLessThanOrEqual(MAX_OAUTH_STATES);
    const evicted = await postJson(node, "/auth/google/callback", { code: firstBack.code, state: firstBack.state, redirect_uri: REDIRECT, code_verifier: VERIFIER });
    expect(evicted.status).toBe(400);
    expect((await json(evicted)).message).toContain("state");
  }, 30_000); // heavy (thousands of requests, mutations or scrypt runs): slow on a loaded machine

  test("authorize is limited per client IP: 10 a minute, then 429 with Retry-After; another IP is not affected", async () => {
    await boot();
    for (let i = 0; i < 10; i++) expect((await authorize(`state-ip-${i}`, "203.0.113.5")).status).toBe(200);
    const limited = await authorize("state-ip-10", "203.0.113.5");
    expect(limited.status).toBe(429);
    expect(limited.headers.get("retry-after")).not.toBeNull();
    expect((await authorize("state-ip-other", "203.0.113.6")).status).toBe(200);
    expect(rows("oauth_states")).toBe(11);
  });
});

describe("the maintenance job deletes dead sign-in state (issue 21)", () => {
  test("expired OAuth states and codes, and limiter rows whose window ended, are deleted; live ones are kept", async () => {
    await boot();
    for (let i = 0; i < 5; i++) expect((await authorize(`state-old-${i}`, `198.51.100.${i}`)).status).toBe(200);
    for (let i = 0; i < 5; i++) {
      expect((await postJson(node, "/auth/email/send", { email: i ? `stranger${i}@example.com` : OWNER }, { ip: `198.51.100.${i}` })).status).toBe(200);
      expect((await postJson(node, "/auth/email/verify", { email: `stranger${i}@example.com`, code: "00000000" }, { ip: `198.51.100.${i}` })).status).toBe(400);
    }
    expect([rows("oauth_states"), rows("owner_codes"), rows("rate_limits")]).toEqual([5, 1, 15]);

    node.clock.advance(60 * 60 * 1000); // every state and code expired, every hourly window ended
    expect((await authorize("state-live", "192.0.2.10")).status).toBe(200);
    expect((await postJson(node, "/auth/email/send", { email: OWNER }, { ip: "192.0.2.10" })).status).toBe(200);

    const job = startMaintenance({ ctx: () => node.ctx(), log: node.ctx().log, everyMs: 5 });
    try {
      for (let i = 0; i < 100 && rows("rate_limits") > 2; i++) await Bun.sleep(5);
    } finally {
      job.stop();
    }
    expect([rows("oauth_states"), rows("owner_codes"), rows("rate_limits")]).toEqual([1, 1, 2]);
    expect(node.db.$client.query("SELECT bucket FROM rate_limits ORDER BY bucket").all()).toEqual([{ bucket: "email-send" }, { bucket: "email-send-client" }]);
  });
});
