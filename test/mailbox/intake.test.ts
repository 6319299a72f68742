import { afterEach, beforeEach, expect, test } from "bun:test";
import { mailboxItems } from "../../src/db/schema/index.ts";
import { bootTestApp, type TestNode } from "../helpers/boot.ts";
import { buildSignedEnvelope, formatTimestamp, signTransport, type EnvelopeDraft } from "../../src/ink/index.ts";
import { freshNonce, postIntent, signedIntent, type SignedRequest } from "../helpers/ink.ts";
import { personaKey } from "../helpers/personas.ts";
import { asOwner } from "../helpers/owner.ts";
import { json } from "../helpers/process.ts";

let mailbox: TestNode;
let home: TestNode;
/** The home agent as peers see it: its card's endpoint is on the mailbox. */
let homeViaMailbox: TestNode;

beforeEach(() => {
  mailbox = bootTestApp({ name: "carol", persona: "carol" });
  home = bootTestApp({ name: "alice", persona: "alice", clock: mailbox.clock });
  homeViaMailbox = { ...home, publicUrl: `${mailbox.publicUrl}/mailbox` } as TestNode;
});
afterEach(() => {
  mailbox.close();
  home.close();
});

const intakePath = (agentId: string) => `/mailbox/ink/v1/${encodeURIComponent(agentId)}/intent`;
const post = (req: SignedRequest, agentId = home.agentId!) => postIntent(mailbox, req, { path: intakePath(agentId) });
const grant = (body: Record<string, unknown> = {}) => asOwner(mailbox, "/api/svc/mailboxes", { body: { agentId: home.agentId, ...body } });
const items = () => mailbox.db.select().from(mailboxItems).all();
async function expectRefused(res: Response, status: number, code: string) {
  const body = await json(res);
  expect({ status: res.status, code: body.code }).toEqual({ status, code });
  expect(body).toMatchObject({ error: code, protocol: "ink/0.1" });
}

test("the owner grants a mailbox for a key-derived agent id, once; lists it with quotas and usage; revokes it", async () => {
  const created = await grant({ maxMessages: 10, retentionHours: 24 });
  expect(created.status).toBe(201);
  expect(await json(created)).toMatchObject({ agentId: home.agentId, status: "active", maxMessages: 10, maxBytes: 16 * 1024 * 1024, retentionHours: 24, messages: 0, bytes: 0, cardPublishedAt: null });
  expect((await grant()).status).toBe(409);
  const listed = await json(await asOwner(mailbox, "/api/svc/mailboxes"));
  expect(listed.items.map((m: { agentId: string }) => m.agentId)).toEqual([home.agentId]);
  const revoked = await asOwner(mailbox, `/api/svc/mailboxes/${encodeURIComponent(home.agentId!)}/revoke`, { method: "POST" });
  expect(await json(revoked)).toMatchObject({ status: "revoked" });
  // Granted again: open anew.
  expect(await json(await grant())).toMatchObject({ status: "active", revokedAt: null });
});

test("grants refuse what is not a key-derived agent id, bad quotas, and anyone but the owner", async () => {
  for (const body of [{ agentId: "did:web:example.com" }, { agentId: "svc:zNOTAKEY" }, { agentId: 42 }, { agentId: home.agentId, maxMessages: 0 }, { agentId: home.agentId, retentionHours: 10_000 }, { agentId: home.agentId, maxBytes: "big" }]) {
    const res = await asOwner(mailbox, "/api/svc/mailboxes", { body });
    expect(res.status).toBe(400);
    expect((await json(res)).error).toBe("invalid_input");
  }
  const anonymous = await mailbox.request("/api/svc/mailboxes", { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify({ agentId: home.agentId }) });
  expect(anonymous.status).toBe(401);
  expect((await mailbox.request("/api/svc/mailboxes")).status).toBe(401);
  expect((await asOwner(mailbox, "/api/svc/mailboxes/svc:zz/revoke", { method: "POST" })).status).toBe(404);
});

test("the mailbox stores exactly what a receiver would accept at its gate: exact bytes and header, sealed bodies sealed", async () => {
  await grant();
  const ask = signedIntent("bob", homeViaMailbox, { intent: "ask", payload: { question: "Lunch?" } });
  const res = await post(ask);
  expect(res.status).toBe(202);
  expect(await json(res)).toEqual({ accepted: true, status: "queued" });
  const meeting = signedIntent("bob", homeViaMailbox, { intent: "schedule_meeting", payload: { proposedTimes: ["2026-07-01T10:00:00Z"], topic: "Secret plans", format: "video", urgency: "normal" } });
  expect((await post(meeting)).status).toBe(202);
  const stored = items();
  expect(stored.map((i) => new TextDecoder().decode(i.body))).toEqual([ask.body, meeting.body]);
  expect(stored.map((i) => i.authorization)).toEqual([ask.authorization, meeting.authorization]);
  expect(new TextDecoder().decode(stored[1]!.body)).not.toContain("Secret plans");
  expect(JSON.parse(new TextDecoder().decode(stored[1]!.body)).type).toBe("network.svc.encrypted");
});

test("the mailbox refuses what the home's receiver would refuse at its gate, and stores none of it", async () => {
  await grant();
  const ok = () => signedIntent("bob", homeViaMailbox, { intent: "ask", payload: { question: "Lunch?" } });
  // Signed for the home's own path (not the endpoint its card names): path binding.
  await expectRefused(await post(signedIntent("bob", home, { intent: "ask", payload: { question: "Lunch?" } })), 401, "invalid_signature");
  const tampered = ok();
  await expectRefused(await post({ ...tampered, body: tampered.body.replace("Lunch?", "Dinner") }), 401, "invalid_signature");
  await expectRefused(await post({ ...ok(), authorization: "" }), 401, "missing_authorization");
  await expectRefused(await post({ ...ok(), authorization: "Bearer x" }), 401, "invalid_auth_scheme");
  await expectRefused(await post(signedIntent("bob", homeViaMailbox, { intent: "ask", payload: { question: "Old" } }, { now: mailbox.clock.now() - 301_000 })), 401, "timestamp_expired");
  await expectRefused(await post(plaintextMeeting()), 400, "encryption_required");
  await expectRefused(await post(signedIntent("bob", { ...homeViaMailbox, agentId: mailbox.agentId } as TestNode, { intent: "ask", payload: { question: "x" } })), 400, "recipient_mismatch");
  await expectRefused(await postIntent(mailbox, ok(), { path: intakePath(home.agentId!), body: '{"a":1e309}' }), 400, "number-range");
  await expectRefused(await postIntent(mailbox, ok(), { path: intakePath(home.agentId!), headers: { "content-type": "text/plain" } }), 415, "unsupported_media_type");
  await expectRefused(await postIntent(mailbox, ok(), { path: intakePath(home.agentId!), body: `{"x":"${"a".repeat(70_000)}"}` }), 413, "body_too_large");
  // No mailbox for that agent (the mailbox node's own agent included).
  await expectRefused(await post(signedIntent("bob", { ...mailbox, publicUrl: `${mailbox.publicUrl}/mailbox` } as TestNode, { intent: "ask", payload: { question: "x" } }), mailbox.agentId!), 404, "unknown_recipient");
  expect(items()).toEqual([]);

  const once = ok();
  expect((await post(once)).status).toBe(202);
  await expectRefused(await post(once), 409, "nonce_replay");
  expect(items()).toHaveLength(1);
});

/** A confidential intent sent in plaintext (the sender skipped sealing). */
function plaintextMeeting(): SignedRequest {
  const key = personaKey("bob", "signing");
  const now = formatTimestamp(mailbox.clock.now());
  const draft = { protocol: "ink/0.1", id: "m-plain", correlationId: "t-plain", createdAt: now, from: `svc:${key.publicKeyMultibase}`, to: home.agentId!, intent: "schedule_meeting", payload: { proposedTimes: ["2026-07-01T10:00:00Z"], topic: "x", format: "video", urgency: "normal" }, timestamp: now, nonce: freshNonce() } as EnvelopeDraft;
  const built = buildSignedEnvelope(draft, key.privateKey, "svc");
  if (!built.ok) throw new Error(built.reason);
  const path = new URL(`${homeViaMailbox.publicUrl}/ink/v1/${home.agentId}/intent`).pathname;
  const signed = signTransport({ method: "POST", path, recipientDid: home.agentId!, body: built.envelope, timestamp: now }, key.privateKey, key.keyId);
  if (!signed.ok) throw new Error(signed.reason);
  return { body: JSON.stringify(built.envelope), authorization: signed.authorization, envelope: built.envelope, path };
}

test("quotas: messages and bytes; expired items do not count; a revoked mailbox takes nothing and keeps nothing", async () => {
  await asOwner(mailbox, "/api/svc/mailboxes", { body: { agentId: home.agentId, maxMessages: 2, retentionHours: 1 } });
  const send = () => post(signedIntent("bob", homeViaMailbox, { intent: "ask", payload: { question: "Lunch?" } }));
  expect((await send()).status).toBe(202);
  expect((await send()).status).toBe(202);
  await expectRefused(await send(), 429, "mailbox_full");
  mailbox.clock.advance(3_600_001);
  expect((await send()).status).toBe(202);
  expect(items()).toHaveLength(1);
  await asOwner(mailbox, `/api/svc/mailboxes/${encodeURIComponent(home.agentId!)}/revoke`, { method: "POST" });
  expect(items()).toEqual([]);
  await expectRefused(await send(), 404, "unknown_recipient");
});

test("per-sender rate: 60 an hour into one mailbox, then 429 with Retry-After", async () => {
  await grant();
  for (let i = 0; i < 60; i++) expect((await post(signedIntent("bob", homeViaMailbox, { intent: "ping", payload: {} }))).status).toBe(202);
  const limited = await post(signedIntent("bob", homeViaMailbox, { intent: "ping", payload: {} }));
  await expectRefused(limited.clone() as Response, 429, "rate_limited");
  expect(Number(limited.headers.get("retry-after"))).toBeGreaterThan(0);
});
