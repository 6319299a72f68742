import { afterEach, expect, test } from "bun:test";
import type { PeerHttp } from "../../src/adapters/peer-http.ts";
import { reviewExtensionVersion } from "../../src/domain/marketplace/review-extension-version.ts";
import { verifyPublisher } from "../../src/domain/marketplace/verify-publisher.ts";
import { bootTestApp, type TestNode } from "../helpers/boot.ts";
import { acmeKey, acmeManifest } from "../helpers/extensions.ts";
import { asOwner } from "../helpers/owner.ts";

let node: TestNode;
afterEach(() => node?.close());
const ID = "com.acme.keepintouch";

/** The outside world for this test: what acme.com's well-known file answers, and which URLs were asked. */
function publisherSite(answer: { status: number; body: unknown } | "unreachable") {
  const asked: string[] = [];
  const http: PeerHttp = {
    async request(url) {
      asked.push(url);
      if (answer === "unreachable") return { ok: false, reason: "dns_failed", detail: "no such host" };
      return { ok: true, status: answer.status, headers: new Headers(), body: new TextEncoder().encode(typeof answer.body === "string" ? answer.body : JSON.stringify(answer.body)), address: "203.0.113.5" };
    },
  };
  const ctx = () => ({ ...node.ctx({ kind: "owner", subject: "owner" }), peers: { ...node.collaborators.peers, http } });
  return { asked, ctx };
}

async function approved() {
  node = bootTestApp();
  await asOwner(node, "/api/svc/marketplace/settings", { method: "PUT", body: { autoApprove: true } });
  expect((await asOwner(node, "/marketplace/submit", { body: { manifest: acmeManifest() } })).status).toBe(201);
}

const badge = async () => ((await (await node.request(`/marketplace/extensions/${ID}`)).json()) as any).publisher.verified;

test("the well-known file listing the id and every active key earns the badge; it is cached an hour", async () => {
  await approved();
  expect(await badge()).toBe(false);
  node.clock.advance(3600_000);
  const site = publisherSite({ status: 200, body: { extensions: [{ id: ID, keys: [acmeKey(0).multibase] }] } });
  expect(await verifyPublisher(site.ctx(), ID)).toMatchObject({ domain: "acme.com", verified: true });
  expect(site.asked).toEqual(["https://acme.com/.well-known/kith-publisher.json"]);
  expect(await badge()).toBe(true);
  await verifyPublisher(site.ctx(), ID);
  expect(site.asked.length).toBe(1);
});

test("no badge (and never a refusal) when the file is missing, unreachable, malformed, omits the id or a key", async () => {
  const answers = [
    { status: 404, body: "not found" },
    "unreachable" as const,
    { status: 200, body: "not json" },
    { status: 200, body: { extensions: [{ id: "com.acme.other", keys: [acmeKey(0).multibase] }] } },
    { status: 200, body: { extensions: [{ id: ID, keys: [acmeKey(1).multibase] }] } },
    { status: 200, body: { extensions: {} } },
  ];
  await approved();
  for (const answer of answers) {
    node.clock.advance(3600_000);
    const site = publisherSite(answer);
    expect((await verifyPublisher(site.ctx(), ID)).verified).toBe(false);
    expect(site.asked.length).toBe(1);
    expect(await badge()).toBe(false);
    expect((await node.request(`/marketplace/extensions/${ID}`)).status).toBe(200);
  }
});

test("the owner can ask for a check; an unknown extension is 404", async () => {
  await approved();
  const res = await asOwner(node, `/api/svc/marketplace/extensions/${ID}/verify-publisher`, { method: "POST" });
  expect([res.status, ((await res.json()) as any).verified]).toEqual([200, false]);
  expect((await asOwner(node, "/api/svc/marketplace/extensions/com.acme.none/verify-publisher", { method: "POST" })).status).toBe(404);
});

test("a domain's file is fetched at most 6 times an hour, however many of its extensions are approved", async () => {
  await approved();
  // The first approval and five more each ask acme.com once (test DNS: unreachable): 6 spent.
  for (const x of ["a", "b", "c", "d", "e"]) expect((await asOwner(node, "/marketplace/submit", { body: { manifest: acmeManifest({ id: `com.acme.ext${x}` }) } })).status).toBe(201);
  await asOwner(node, "/api/svc/marketplace/settings", { method: "PUT", body: { autoApprove: false } });
  expect((await asOwner(node, "/marketplace/submit", { body: { manifest: acmeManifest({ id: "com.acme.extg" }) } })).status).toBe(201);
  reviewExtensionVersion(node.ctx({ kind: "owner", subject: "owner" }), "com.acme.extg", "1.0.0", { decision: "approve" });
  const site = publisherSite({ status: 200, body: { extensions: [{ id: "com.acme.extg", keys: [acmeKey(0).multibase] }] } });
  expect((await verifyPublisher(site.ctx(), "com.acme.extg")).verified).toBe(false);
  expect(site.asked).toEqual([]);
  node.clock.advance(3600_000);
  expect((await verifyPublisher(site.ctx(), "com.acme.extg")).verified).toBe(true);
  expect(site.asked.length).toBe(1);
});
