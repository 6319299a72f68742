// Authorization and delegation profiles built and verified here (the upstream vectors run in the
// conformance suite): sign-in challenges, single-use grants, delegation chains, and Kith's
// extension delegation token (docs/decisions/extension-delegation-token.md). One test per reason.
import { describe, expect, test } from "bun:test";
import { createMemoryNonceStore, deriveAgentId, generateEd25519KeyPair, type SigningKeyEntry } from "../../src/ink/index.ts";
import {
  DELEGATION_EXTEND,
  decodeDelegationToken,
  delegationLinkDigest,
  deriveChallengeGrantId,
  encodeDelegationToken,
  isAttenuation,
  rpOrigin,
  signAuthorizationChallenge,
  signAuthorizationGrant,
  signDelegationLink,
  verifyAuthorizationChallenge,
  verifyAuthorizationGrant,
  verifyDelegationChain,
  verifyDelegationToken,
  type DelegationLink,
} from "../../src/ink/profiles.ts";

const T0 = Date.parse("2026-07-11T12:00:00.000Z");
const at = (minutes: number) => new Date(T0 + minutes * 60_000).toISOString();
const key = (n: number) => generateEd25519KeyPair(new Uint8Array(32).fill(n));
const [RP, ISSUER, AGENT, EXT, SUB, OTHER] = [key(0x31), key(0x32), key(0x33), key(0x34), key(0x35), key(0x66)];
const active = (k: ReturnType<typeof key>, extra: Partial<SigningKeyEntry> = {}): SigningKeyEntry[] => [{ keyId: "k", publicKey: k.publicKey, status: "active", ...extra }];

describe("sign-in challenges", () => {
  const draft = { rp: "did:web:rp.example", nonce: "challenge-nonce-0001", requestedScope: ["identity.assert", "profile.read"], redirectUri: "https://rp.example/cb", issuedAt: at(0), expiresAt: at(5) };
  const signed = (over: Partial<typeof draft> = {}) => {
    const r = signAuthorizationChallenge({ ...draft, ...over }, RP.secretKey, "svc");
    if (!r.ok) throw new Error(r.issue);
    return r.challenge;
  };
  const verify = (challenge: unknown, over: Record<string, unknown> = {}) => verifyAuthorizationChallenge({ challenge, rpKeys: active(RP), now: T0 + 60_000, wordmark: "svc", ...over });

  test("sign → verify, with the derived grant id and the rp origin", () => {
    const c = signed();
    expect(verify(c)).toEqual({ ok: true, challenge: c, grantId: deriveChallengeGrantId(c)!, origin: "https://rp.example" });
    expect(verifyAuthorizationChallenge({ raw: ` ${JSON.stringify(c)} `, rpKeys: active(RP), now: T0, wordmark: "svc" }).ok).toBe(true);
    // The other wordmark's body-signature domain does not verify it.
    expect(verify(c, { wordmark: "tulpa" })).toMatchObject({ ok: false, reason: "signature" });
  });

  test("the grant id binds rp, nonce and window only", () => {
    const id = deriveChallengeGrantId(draft);
    expect(id).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(deriveChallengeGrantId({ ...draft, requestedScope: ["identity.assert"], redirectUri: "https://rp.example/x" })).toBe(id);
    for (const over of [{ rp: "did:web:rp2.example" }, { nonce: "challenge-nonce-0002" }, { expiresAt: at(6) }]) expect(deriveChallengeGrantId({ ...draft, ...over })).not.toBe(id);
    expect(deriveChallengeGrantId({ ...draft, rp: 1 })).toBeNull();
  });

  test("rp origins: bare-host did:web only", () => {
    expect(rpOrigin("did:web:rp.example%3A8443")).toBe("https://rp.example:8443");
    for (const bad of ["did:web:rp.example:path", "did:web:RP.example", "did:web:rp.123", "did:web:10.0.0.1", "did:web:rp.example%3A443", "did:web:rp.example%3a8443", "did:web:rp.example%3A0", "did:web:rp.example%3A65536", "did:web:rp.example%3A08443", "did:web:rp.example.", "did:web:rp%2Eexample", "did:web:[::1]", "did:web:localhost", "did:key:z6Mk"]) {
      expect({ bad, origin: rpOrigin(bad) }).toEqual({ bad, origin: null });
    }
  });

  test("schema: redirect rule, registry scopes, nonce, window, clock", () => {
    const c = signed();
    const redirects = ["https://evil.example/cb", "https://rp.example.evil.com/cb", "https://rp.example", "https://rp.example/cb#f", "https://rp.example/c\\b", "https://rp.example/c b", "https://rp.example/c\u0001b", "https://RP.EXAMPLE/cb"];
    for (const redirectUri of redirects) expect({ redirectUri, r: verify({ ...c, redirectUri }) }).toMatchObject({ redirectUri, r: { ok: false, reason: "schema" } });
    for (const requestedScope of [["profile.read"], ["identity.assert", "admin:all"], ["identity.assert", "identity.assert"], []]) expect(verify({ ...c, requestedScope })).toMatchObject({ ok: false, reason: "schema" });
    expect(verify({ ...c, nonce: "short" })).toMatchObject({ ok: false, reason: "schema" });
    expect(verify({ ...c, expiresAt: at(11) })).toMatchObject({ ok: false, reason: "schema" });
    expect(verify({ ...c, type: "network.svc.authorization_challenge" })).toMatchObject({ ok: false, reason: "schema" });
    expect(verify({ ...c, extra: 1 })).toMatchObject({ ok: false, reason: "schema" });
    expect(verify({ ...c, nonce: "challenge-\ud800-nonce" })).toMatchObject({ ok: false, reason: "schema" });
    expect(verify(c, { now: Number.NaN })).toMatchObject({ ok: false, reason: "schema" });
    expect(signAuthorizationChallenge({ ...draft, redirectUri: "https://evil.example/" }, RP.secretKey, "svc").ok).toBe(false);
  });

  test("only an active RP key inside its window signs; signature is checked before the window", () => {
    const c = signed();
    expect(verify(c, { rpKeys: active(RP, { status: "retired" }) })).toMatchObject({ ok: false, reason: "signature" });
    expect(verify(c, { rpKeys: active(RP, { validUntil: at(0) }) })).toMatchObject({ ok: false, reason: "signature" });
    expect(verify(c, { rpKeys: active(OTHER) })).toMatchObject({ ok: false, reason: "signature" });
    expect(verify(c, { now: T0 - 1 })).toMatchObject({ ok: false, reason: "not_yet_valid" });
    expect(verify(c, { now: T0 + 5 * 60_000 })).toMatchObject({ ok: false, reason: "expired" });
    expect(verify({ ...c, nonce: "challenge-nonce-9999" }, { now: T0 + 60 * 60_000 })).toMatchObject({ ok: false, reason: "signature" });
  });
});

describe("grants", () => {
  const issuer = deriveAgentId(ISSUER.publicKey, "svc");
  const draft = { issuer, subject: "did:web:sub.example", audience: "did:web:svc.example", scope: ["profile:read"], grantId: "grant-000000000001", issuedAt: at(0), expiresAt: at(5) };
  const grant = (over: Record<string, unknown> = {}, options: { neutralType?: boolean } = {}) => {
    const r = signAuthorizationGrant({ ...draft, ...over } as never, ISSUER.secretKey, "svc", options);
    if (!r.ok) throw new Error(r.issue);
    return r.grant;
  };
  const verify = (g: unknown, over: Record<string, unknown> = {}) =>
    verifyAuthorizationGrant({ grant: g, issuerKeys: active(ISSUER), audience: "did:web:svc.example", now: T0 + 60_000, replay: createMemoryNonceStore(), wordmark: "svc", ...over });

  test("verifies once: a second presentation is a replay, keyed on the canonical issuer", () => {
    const replay = createMemoryNonceStore();
    expect(verify(grant(), { replay })).toMatchObject({ ok: true });
    expect(verify(grant(), { replay })).toMatchObject({ ok: false, reason: "replay" });
    // The tulpa: spelling of the same issuer key is the same principal (INK §2.3).
    expect(verify(grant({ issuer: `tulpa:${issuer.slice(4)}` }), { replay })).toMatchObject({ ok: false, reason: "replay" });
    expect(verify(grant({}, { neutralType: true }))).toMatchObject({ ok: true });
  });

  test("one test per reason, in INK's order", () => {
    const g = grant();
    expect(verify({ ...g, scope: ["profile:read", "admin:all"] }, { audience: "did:web:other.example" })).toMatchObject({ reason: "signature" });
    expect(verify(g, { audience: "did:web:other.example" })).toMatchObject({ reason: "audience" });
    expect(verify(g, { presenter: "did:web:thief.example" })).toMatchObject({ reason: "subject" });
    expect(verify(g, { presenter: "did:web:sub.example" }).ok).toBe(true);
    expect(verify(g, { now: T0 - 1 })).toMatchObject({ reason: "not_yet_valid" });
    expect(verify(g, { now: T0 + 5 * 60_000 })).toMatchObject({ reason: "expired" });
    expect(verify(g, { isRevoked: (p: string, id: string) => p === `key:${issuer.slice(4)}` && id === g.grantId })).toMatchObject({ reason: "revoked" });
    const owner = grant({ requireVerifiedOwner: true });
    expect(verify(owner)).toMatchObject({ reason: "owner_unverified" });
    expect(verify(owner, { ownerVerified: true }).ok).toBe(true);
    expect(verify(g, { maxLifetimeMs: 60_000 })).toMatchObject({ reason: "schema" });
    expect(verify(g, { maxLifetimeMs: -1 })).toMatchObject({ reason: "schema" });
    expect(verify({ ...g, type: "network.tulpa.authorization_grant" })).toMatchObject({ reason: "schema" });
    expect(signAuthorizationGrant({ ...draft, expiresAt: at(11) }, ISSUER.secretKey, "svc")).toMatchObject({ ok: false, reason: "schema" });
  });

  test("a refused grant is not recorded; a failing store or predicate fails closed", () => {
    const replay = createMemoryNonceStore();
    expect(verify(grant(), { replay, isRevoked: () => true })).toMatchObject({ reason: "revoked" });
    expect(replay.size()).toBe(0);
    expect(verify(grant(), { replay }).ok).toBe(true);
    const broken = { has: () => { throw new Error("db"); }, addIfAbsent: () => true };
    expect(verify(grant(), { replay: broken })).toMatchObject({ ok: false, reason: "replay" });
    expect(verify(grant(), { isRevoked: () => { throw new Error("db"); } })).toMatchObject({ ok: false, reason: "revoked" });
  });
});

describe("delegation chains", () => {
  const ids = { origin: deriveAgentId(ISSUER.publicKey, "svc"), d1: deriveAgentId(SUB.publicKey, "svc"), d2: deriveAgentId(EXT.publicKey, "svc") };
  const keyOf: Record<string, ReturnType<typeof key>> = { [ids.origin]: ISSUER, [ids.d1]: SUB, [ids.d2]: EXT };
  const link = (over: Partial<DelegationLink>, signer: ReturnType<typeof key>, final = false) => {
    const base = { issuer: ids.origin, subject: ids.d1, audience: "did:web:svc.example", scope: ["profile:read", "messages:send", DELEGATION_EXTEND], grantId: "chain-root-0000000001", issuedAt: at(0), expiresAt: at(30) };
    const r = signDelegationLink({ ...base, ...over } as never, signer.secretKey, "svc", { final });
    if (!r.ok) throw new Error(r.issue);
    return r.link;
  };
  const root = link({}, ISSUER);
  const head = (over: Partial<DelegationLink> = {}, parent: DelegationLink = root) =>
    link({ issuer: ids.d1, subject: ids.d2, scope: ["profile:read"], grantId: "chain-head-0000000001", issuedAt: at(5), expiresAt: at(10), parent: delegationLinkDigest(parent)!, ...over }, SUB, true);
  const verify = (links: unknown[], over: Record<string, unknown> = {}) =>
    verifyDelegationChain({
      chain: { protocol: "ink/0.1", type: "network.ink.authorization_chain", links },
      issuerKeys: (issuer) => (keyOf[issuer] ? active(keyOf[issuer]!) : []),
      audience: "did:web:svc.example",
      now: T0 + 6 * 60_000,
      replay: createMemoryNonceStore(),
      wordmark: "svc",
      ...over,
    });

  test("a 2-link chain verifies and yields the narrowest scope; only the head is replay-checked", () => {
    const replay = createMemoryNonceStore([[`key:${ids.origin.slice(4)}`, root.grantId]]);
    expect(verify([root, head()], { replay })).toMatchObject({ ok: true, scope: ["profile:read"] });
    expect(verify([root, head()], { replay })).toMatchObject({ ok: false, reason: "replay" });
  });

  test("chain: continuity and the parent digest", () => {
    expect(verify([root, head({ issuer: ids.d2 })])).toMatchObject({ reason: "chain" });
    expect(verify([root, head({ parent: delegationLinkDigest({ ...root, grantId: "chain-root-0000000002" })! })])).toMatchObject({ reason: "chain" });
    expect(verify([{ ...root, grantId: "chain-root-0000000009" }, head()])).toMatchObject({ reason: "chain" }); // an edited ancestor, before any signature
  });

  test("attenuation: the extend gate, scope, window", () => {
    const tokenless = link({ scope: ["profile:read"] }, ISSUER);
    expect(verify([tokenless, head({}, tokenless)])).toMatchObject({ reason: "attenuation" });
    expect(verify([root, head({ scope: ["profile:read", "admin:all"] })])).toMatchObject({ reason: "attenuation" });
    expect(verify([root, head({ issuedAt: at(-1), expiresAt: at(5) })])).toMatchObject({ reason: "attenuation" });
    expect(isAttenuation(root, { scope: ["messages:send"], issuedAt: at(1), expiresAt: at(30) })).toBe(true);
    expect(isAttenuation(root, { scope: ["messages:send"], issuedAt: at(1), expiresAt: at(31) })).toBe(false);
  });

  test("schema: depth, parents, position ceilings; signatures under active keys; presentation", () => {
    expect(verify([root])).toMatchObject({ reason: "schema" });
    expect(verify([{ ...root, parent: delegationLinkDigest(root) }, head()])).toMatchObject({ reason: "schema" });
    const { parent: _p, ...orphan } = head();
    expect(verify([root, orphan])).toMatchObject({ reason: "schema" });
    expect(signDelegationLink({ ...root, expiresAt: at(24 * 60 + 1) } as never, ISSUER.secretKey, "svc").ok).toBe(false);
    expect(verify([root, head()], { now: Number.NaN })).toMatchObject({ reason: "schema" });
    expect(verify([root, head()], { issuerKeys: (issuer: string) => (issuer === ids.d1 ? active(SUB, { status: "retired" }) : active(ISSUER)) })).toMatchObject({ reason: "signature" });
    expect(verify([root, head()], { audience: "did:web:other.example" })).toMatchObject({ reason: "audience" });
    expect(verify([root, head()], { presenter: ids.d1 })).toMatchObject({ reason: "subject" });
    expect(verify([root, head()], { isRevoked: (_p: string, id: string) => id === root.grantId })).toMatchObject({ reason: "revoked" });
    expect(verify([root, head()], { now: T0 + 10 * 60_000 })).toMatchObject({ reason: "expired" });
  });
});

describe("extension delegation token (an INK root link)", () => {
  const agentId = deriveAgentId(AGENT.publicKey, "svc");
  const extId = deriveAgentId(EXT.publicKey, "svc");
  const issue = (over: Partial<DelegationLink> = {}) => {
    const r = signDelegationLink(
      { issuer: agentId, subject: extId, audience: agentId, scope: ["connections:list", "layer:inner", "autonomy:transactional"], grantId: "0d9f3c52-4a1e-4c2b-9f57-3f3c0a8e1b11", issuedAt: at(0), expiresAt: at(240), ...over } as never,
      AGENT.secretKey,
      "svc",
    );
    if (!r.ok) throw new Error(r.issue);
    return r.link;
  };
  const verify = (token: unknown, over: Record<string, unknown> = {}) => verifyDelegationToken({ token, issuerKeys: active(AGENT), audience: agentId, now: T0 + 60_000, wordmark: "svc", ...over });

  test("encode → decode → verify; the subject is the extension's key", () => {
    const link = issue();
    const token = encodeDelegationToken(link)!;
    expect(token).toMatch(/^[A-Za-z0-9_-]+\.[A-Za-z0-9_-]{86}$/);
    expect(decodeDelegationToken(token)).toEqual({ ok: true, link });
    const r = verify(token, { presenter: extId });
    expect(r).toMatchObject({ ok: true, link });
    expect(r.ok && Buffer.from(r.subjectKey).equals(Buffer.from(EXT.publicKey))).toBe(true);
  });

  test("refusals: tampered payload, a retired agent key (rotation), audience, presenter, window, shape", () => {
    const token = encodeDelegationToken(issue())!;
    const [payload, sig] = token.split(".") as [string, string];
    const widened = Buffer.from(JSON.stringify({ ...JSON.parse(Buffer.from(payload, "base64url").toString()), scope: ["connections:list", "intents:send"] })).toString("base64url");
    expect(verify(`${widened}.${sig}`)).toMatchObject({ ok: false, reason: "signature" });
    expect(verify(token, { issuerKeys: active(AGENT, { status: "retired" }) })).toMatchObject({ ok: false, reason: "signature" });
    expect(verify(token, { audience: "svc:zOther" })).toMatchObject({ ok: false, reason: "audience" });
    expect(verify(token, { presenter: agentId })).toMatchObject({ ok: false, reason: "subject" });
    expect(verify(token, { now: T0 + 240 * 60_000 })).toMatchObject({ ok: false, reason: "expired" });
    expect(verify(encodeDelegationToken(issue({ subject: "did:web:ext.example" }))!)).toMatchObject({ ok: false, reason: "schema" });
    expect(verify(encodeDelegationToken(issue({ parent: delegationLinkDigest(issue())! }))!)).toMatchObject({ ok: false, reason: "schema" });
    for (const junk of [null, "", "a.b", `${payload}.${sig}.x`, `${"A".repeat(9000)}.${sig}`, `${Buffer.from("[1]").toString("base64url")}.${sig}`]) expect(verify(junk)).toMatchObject({ ok: false, reason: "schema" });
  });

  test("a token carrying delegation.extend roots a real INK chain toward the node", () => {
    const root = issue({ scope: ["connections:list", DELEGATION_EXTEND] });
    const sub = deriveAgentId(SUB.publicKey, "svc");
    const head = signDelegationLink({ issuer: extId, subject: sub, audience: agentId, scope: ["connections:list"], grantId: "sub-delegation-000001", issuedAt: at(1), expiresAt: at(6), parent: delegationLinkDigest(root)! } as never, EXT.secretKey, "svc", { final: true });
    if (!head.ok) throw new Error(head.issue);
    const keys: Record<string, SigningKeyEntry[]> = { [agentId]: active(AGENT), [extId]: active(EXT) };
    const r = verifyDelegationChain({ chain: { protocol: "ink/0.1", type: "network.ink.authorization_chain", links: [root, head.link] }, issuerKeys: (i) => keys[i] ?? [], audience: agentId, now: T0 + 2 * 60_000, presenter: sub, replay: createMemoryNonceStore(), wordmark: "svc" });
    expect(r).toMatchObject({ ok: true, scope: ["connections:list"] });
  });
});
