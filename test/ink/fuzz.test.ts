// Seeded, bounded property tests over the public parsers: mutated and random inputs never throw,
// always terminate, and are never accepted when an independent oracle says the rules reject them.
import { describe, expect, test } from "bun:test";
import * as v from "valibot";
import {
  type AgentCard,
  buildSignedEnvelope,
  canonicalize,
  checkCardFetchResponse,
  decideInbound,
  inspectInbound,
  IntentEnvelope,
  isValidIntentName,
  parseAuthorizationHeader,
  parseEnvelope,
  parseRawBody,
  prepareOutbound,
  REGISTERED_INTENTS,
  resolveSenderKeys,
  validateAgentCard,
} from "../../src/ink/index.ts";
import { nativeStrictVerifier } from "../../src/security/ed25519-native.ts";
import { ALICE, alice, BOB, draft, ENDPOINT, NOW, policy, type Rng, rng, WORDMARK } from "./helpers.ts";

const enc = new TextEncoder();

const TOKENS = [
  '\\ud800', '\\udc00', '\\uD83D\\uDE00', '\\\\ud800', '1e309', '-1e999', '1e-400', '9007199254740993', '-0', '1.5',
  '\\u0061', '"\\n":', '"a":', '{', '}', '[', ']', ',', ':', '"', '\\', ' ', '\t', '\n', 'null', 'true', '€', '😀', 'é',
];
const BYTE_TOKENS = [[0xff], [0xfe], [0xc0, 0xaf], [0xed, 0xa0, 0x80], [0xef, 0xbb, 0xbf], [0xe2, 0x82], [0x80], [0xf4, 0x90, 0x80, 0x80]];

function mutateText(r: Rng, text: string): string {
  let t = text;
  for (let n = 1 + r.int(3); n > 0; n--) {
    const at = r.int(t.length + 1);
    switch (r.int(4)) {
      case 0: t = t.slice(0, at) + r.pick(TOKENS) + t.slice(at); break;
      case 1: t = t.slice(0, at) + t.slice(at + 1 + r.int(4)); break;
      case 2: t = t.slice(0, at) + String.fromCharCode(r.int(128)) + t.slice(at + 1); break;
      default: t = t.slice(0, at) + t.slice(r.int(t.length)) ; break;
    }
  }
  return t;
}

function mutateBytes(r: Rng, bytes: Uint8Array): Uint8Array {
  const out = [...bytes];
  for (let n = 1 + r.int(3); n > 0; n--) {
    const at = r.int(out.length + 1);
    if (r.int(2) === 0) out.splice(at, 0, ...r.pick(BYTE_TOKENS));
    else out[at] = r.int(256);
  }
  return Uint8Array.from(out);
}

/**
 * Independent oracle for the raw-text rules (regex tokenizer, not the gate's scanner): lone
 * surrogate escapes in any string, out-of-range number literals, escaped member names.
 */
function oracleViolates(text: string): boolean | "unknown" {
  const tokens = text.match(/"(?:[^"\\]|\\[\s\S])*"|-?\d[\d.eE+-]*|-|[\s\S]/g) ?? [];
  for (let i = 0; i < tokens.length; i++) {
    const tok = tokens[i] as string;
    if (tok === '"') return "unknown"; // unterminated string: invalid JSON whatever the rule
    if (tok.startsWith('"') && tok.length >= 2 && tok.endsWith('"')) {
      let decoded: string;
      // A string token that is not valid JSON makes the whole text invalid: the gate may reject
      // it under either rule, so the oracle abstains.
      try { decoded = JSON.parse(tok) as string; } catch { return "unknown"; }
      if (!decoded.isWellFormed()) return true;
      if (tok.includes("\\")) {
        let j = i + 1;
        while (j < tokens.length && /^[ \t\n\r]$/.test(tokens[j] as string)) j++;
        if (tokens[j] === ":") return true;
      }
    } else if (/^-?\d/.test(tok) && !Number.isFinite(Number(tok)) && !Number.isNaN(Number(tok))) {
      return true;
    }
  }
  return false;
}

const sampleBodies = [
  JSON.stringify({ protocol: "ink/0.1", from: ALICE, to: BOB, payload: { note: "héllo 😀", n: [1, -2, 3e2] }, ok: true, x: null }),
  '{"a":"\\u00e9\\n","b":[1,2,{"c":"\\ud83d\\ude00"}],"d":-0.0e0}',
  '{"k":"v"}',
];

describe("fuzz: raw-body gate", () => {
  test("text inputs: never throws; accept ⇒ JSON parses and the independent oracle finds no violation", () => {
    const r = rng(0x1a2b);
    let accepted = 0;
    for (let i = 0; i < 4000; i++) {
      const text = mutateText(r, r.pick(sampleBodies));
      const g = parseRawBody(text);
      const violates = oracleViolates(text);
      if (g.ok) {
        accepted++;
        expect({ text, violates }).toEqual({ text, violates: false });
        expect(() => JSON.parse(text)).not.toThrow();
      } else if (violates !== "unknown" && g.reason !== "invalid_json" && g.reason !== "utf8" && g.reason !== "body_too_large") {
        // A raw-text rejection must be one the oracle agrees with.
        expect({ text, reason: g.reason, violates }).toEqual({ text, reason: g.reason, violates: true });
      }
    }
    expect(accepted).toBeGreaterThan(100);
  }, 20_000);

  test("byte inputs: accept ⇒ strict UTF-8; random bytes never throw", () => {
    const r = rng(0x3c4d);
    const fatal = new TextDecoder("utf-8", { fatal: true, ignoreBOM: true });
    for (let i = 0; i < 3000; i++) {
      const bytes = i % 3 === 0 ? Uint8Array.from({ length: r.int(64) }, () => r.int(256)) : mutateBytes(r, enc.encode(r.pick(sampleBodies)));
      const g = parseRawBody(bytes);
      if (g.ok) expect(() => fatal.decode(bytes)).not.toThrow();
    }
  }, 20_000);

  test("pathological nesting and sizes terminate", () => {
    expect(parseRawBody("[".repeat(60_000)).ok).toBe(false);
    expect(parseRawBody(`"${"\\".repeat(60_000)}`).ok).toBe(false);
    expect(parseRawBody(`{"a":${"1".repeat(60_000)}}`).ok).toBe(false); // number-range (1e60000 → Infinity)
    const deep = JSON.parse(`${"[".repeat(40)}${"]".repeat(40)}`);
    expect(canonicalize(deep)).toEqual({ ok: false, reason: "too_deep" });
  });
});

describe("fuzz: Authorization header parser", () => {
  const SIG = "ifHGTDmRgl6H_XZIyCgkaxmE2AVSNvgQG_dybsZvsVobod0qzYcBe8bEsf1srDvmdbyeD6-jnQTFb0xTmCeaCA";
  const ALPHABET = "INK-Ed25519 keyId=ABCabc012_-:./+= \t\r\n\u00a0";
  // Oracle written without a regex over the whole header.
  const sigChar = (c: string) => /^[A-Za-z0-9_-]$/.test(c);
  const keyChar = (c: string) => /^[A-Za-z0-9_:.-]$/.test(c);
  function oracle(h: string): { signature: string; keyId: string | null } | null {
    if (h.length > 512 || !h.startsWith("INK-Ed25519 ")) return null;
    const rest = h.slice(12);
    const sig = rest.slice(0, 86);
    if (sig.length !== 86 || ![...sig].every(sigChar)) return null;
    const tail = rest.slice(86);
    if (tail === "") return { signature: sig, keyId: null };
    if (!tail.startsWith(" keyId=")) return null;
    const keyId = tail.slice(7);
    return keyId.length >= 1 && keyId.length <= 128 && [...keyId].every(keyChar) ? { signature: sig, keyId } : null;
  }
  test("random and mutated headers match the grammar oracle exactly", () => {
    const r = rng(0x5e6f);
    let accepted = 0;
    for (let i = 0; i < 5000; i++) {
      let h: string;
      if (i % 4 === 0) h = Array.from({ length: r.int(120) }, () => r.pick([...ALPHABET])).join("");
      else {
        h = `INK-Ed25519 ${SIG}${r.int(2) === 0 ? "" : ` keyId=${"k".repeat(1 + r.int(130))}`}`;
        for (let n = r.int(3); n > 0; n--) {
          const at = r.int(h.length + 1);
          h = r.int(2) === 0 ? h.slice(0, at) + r.pick([...ALPHABET]) + h.slice(at) : h.slice(0, at) + h.slice(at + 1);
        }
      }
      const got = parseAuthorizationHeader(h);
      const want = oracle(h);
      if (got.ok) accepted++;
      expect({ h, got: got.ok ? { signature: got.signature, keyId: got.keyId } : null }).toEqual({ h, got: want });
    }
    expect(accepted).toBeGreaterThan(200);
    for (const junk of [undefined, null, 42, {}, [], "x".repeat(10_000)]) expect(parseAuthorizationHeader(junk).ok).toBe(false);
  }, 20_000);
});

describe("fuzz: Agent Card validator", () => {
  const base = {
    protocol: "ink/0.1", agentId: "did:web:a.example", handle: "alice", displayName: "Alice",
    endpoint: "https://a.example/ink/inbox", publicKeyMultibase: "z6MkgosDnsjFCTf73Ms7S4Nzwe78GD7Bzn94hTU462M4GirX",
    capabilities: { intentsAccepted: ["ask", "ping"], intentsSent: ["ask"] }, availability: { timezone: "UTC" },
    visibility: "public", discovery: { enabled: true, scope: "public", tags: ["x"] },
    keys: { signing: [{ keyId: "k1", algorithm: "Ed25519", publicKeyMultibase: "z6MkgosDnsjFCTf73Ms7S4Nzwe78GD7Bzn94hTU462M4GirX", status: "active", validFrom: "2026-01-01T00:00:00Z" }] },
    keySetVersion: 2,
  };
  const VALUES: unknown[] = [
    null, true, 0, -1, 1.5, 2 ** 60, "", "x", "ink/0.2", "https://b.example/", "http://a.example", "https://a.example:0/",
    "https://u@a.example/", "https://a.example/#f", "https://a.example\\x", " https://a.example/", "z", "z".repeat(200), "teleport",
    "public", "private", "network_only", [], ["ping"], ["teleport"], Array(33).fill("ping"), {}, { timezone: "UTC" }, "2026-13-01T00:00:00Z",
  ];
  const PATHS = [
    ["protocol"], ["agentId"], ["handle"], ["endpoint"], ["inboxEndpoint"], ["publicKeyMultibase"], ["capabilities"], ["capabilities", "intentsAccepted"],
    ["capabilities", "intentsSent"], ["availability"], ["availability", "timezone"], ["visibility"], ["discovery"], ["discovery", "scope"],
    ["discovery", "enabled"], ["discovery", "tags"], ["keys"], ["keys", "signing"], ["keySetVersion"], ["ownerDid"], ["extra"],
  ];
  const EXPOSURE: Record<string, number> = { public: 3, network_only: 2, capability_gated: 1, private: 0 };
  // Invariants every accepted card must satisfy, checked independently of the schema.
  function invariants(c: AgentCard): string[] {
    const bad: string[] = [];
    const e = c.endpoint;
    if (c.protocol !== "ink/0.1") bad.push("protocol");
    if (!e.startsWith("https://") || /[\s#\\]/.test(e) || e.slice(8).split(/[/?]/)[0]?.includes("@") || new URL(e).hostname === "") bad.push("endpoint");
    if (c.inboxEndpoint !== undefined && c.inboxEndpoint !== e) bad.push("inbox");
    if (!c.publicKeyMultibase.startsWith("z") || c.publicKeyMultibase.length > 128) bad.push("pk");
    for (const list of [c.capabilities.intentsAccepted, c.capabilities.intentsSent]) {
      if (list.length > 32 || !list.every((x) => (REGISTERED_INTENTS as readonly string[]).includes(x))) bad.push("intents");
    }
    if (typeof c.availability.timezone !== "string") bad.push("tz");
    if (c.discovery !== undefined && (EXPOSURE[c.discovery.scope] ?? 9) > (EXPOSURE[c.visibility ?? "public"] ?? -1)) bad.push("scope");
    if (c.keySetVersion !== undefined && !(Number.isSafeInteger(c.keySetVersion) && c.keySetVersion > 0)) bad.push("ksv");
    return bad;
  }
  test("mutated cards: never throw; accepted cards satisfy the invariants", () => {
    const r = rng(0x7a8b);
    let accepted = 0;
    for (let i = 0; i < 3000; i++) {
      const card = structuredClone(base) as Record<string, any>;
      for (let n = 1 + r.int(3); n > 0; n--) {
        const path = r.pick(PATHS);
        let target = card;
        for (const k of path.slice(0, -1)) target = target[k] = typeof target[k] === "object" && target[k] !== null ? target[k] : {};
        const last = path[path.length - 1] as string;
        if (r.int(4) === 0) delete target[last];
        else target[last] = structuredClone(r.pick(VALUES));
      }
      const res = validateAgentCard(card);
      if (res.ok) {
        accepted++;
        expect({ i, bad: invariants(res.card) }).toEqual({ i, bad: [] });
      }
      // The fetch gate never accepts what the validator rejects.
      const fetched = checkCardFetchResponse({ status: 200, contentType: "application/json", contentLength: null, body: JSON.stringify(card), requestedAgentId: String(card.agentId), resolutionDid: null, allowPrivateHosts: true });
      if (fetched.ok) expect(res.ok).toBe(true);
    }
    expect(accepted).toBeGreaterThan(100);
    for (const junk of [null, 1, "card", [], [base], new Date(0)]) expect(validateAgentCard(junk).ok).toBe(false);
  }, 20_000);
});

describe("fuzz: envelope parser and receiver", () => {
  test("the hand-written hot-path schema agrees with the valibot IntentEnvelope schema", () => {
    const r = rng(0x9c0d);
    const VALUES: unknown[] = [undefined, null, 1, "", "x", "ink/0.1", "ink/0.2", "x".repeat(257), "x".repeat(513), {}, [], { origin: "human" }, { origin: "robot" }, "Teleport", "com.example.x", "a..b"];
    const KEYS = ["protocol", "id", "correlationId", "createdAt", "from", "to", "intent", "payload", "signature", "expiresAt", "signingKeyId", "timestamp", "nonce", "provenance", "extra", "type"];
    for (let i = 0; i < 3000; i++) {
      const env: Record<string, unknown> = { ...draft(), signature: "s".repeat(86) };
      for (let n = 1 + r.int(3); n > 0; n--) {
        const k = r.pick(KEYS);
        const value = r.pick(VALUES);
        if (value === undefined) delete env[k];
        else env[k] = value;
      }
      const ours = parseEnvelope(env);
      const protocolKnown = typeof env.protocol !== "string" || env.protocol === "ink/0.1" || env.protocol === "ink/0.2";
      const theirs = v.safeParse(IntentEnvelope, env).success && canonicalize(env).ok;
      if (protocolKnown) expect({ env, ours: ours.ok }).toEqual({ env, ours: theirs });
      else expect(ours.ok).toBe(false);
      if (ours.ok) expect(isValidIntentName(ours.envelope.intent)).toBe(true);
    }
  }, 20_000);

  test("byte-mutated signed requests are rejected unless the mutation is semantically null", () => {
    const r = rng(0xe1f2);
    const env = buildSignedEnvelope(draft({ intent: "ask", payload: { question: "How do you verify agents? 😀", context: "fuzz" } }), alice.secretKey, WORDMARK);
    if (!env.ok) throw new Error(env.reason);
    const req = prepareOutbound({ envelope: env.envelope, recipient: { agentId: BOB, endpoint: ENDPOINT }, secretKey: alice.secretKey, wordmark: WORDMARK });
    if (!req.ok) throw new Error(req.reason);
    const original = canonicalize(JSON.parse(req.bodyText));
    const keys = resolveSenderKeys({ agentId: ALICE });
    let accepted = 0;
    for (let i = 0; i < 2500; i++) {
      const bytes = i % 2 === 0 ? mutateBytes(r, enc.encode(req.bodyText)) : enc.encode(mutateText(r, req.bodyText));
      const auth = r.int(10) === 0 ? mutateText(r, req.authorization) : req.authorization;
      const d = decideInbound({ body: bytes, authorization: auth, now: NOW }, policy, { keys, verifier: nativeStrictVerifier, replay: { defer: true } });
      if (d.ok) {
        accepted++;
        // Only reformattings of the same JSON value (whitespace, member order) may pass.
        const again = canonicalize(JSON.parse(new TextDecoder().decode(bytes)));
        expect(again).toEqual(original);
        expect(parseAuthorizationHeader(auth)).toEqual(parseAuthorizationHeader(req.authorization));
      }
    }
    // Semantically null edits (e.g. inserted whitespace) do occur and are accepted.
    expect(accepted).toBeGreaterThan(0);
  }, 30_000);

  test("random JSON values never throw out of inspectInbound", () => {
    const r = rng(0x1357);
    const atoms: unknown[] = [null, true, 0, -1, 1e300, "", "x", [], {}];
    const gen = (depth: number): unknown => {
      if (depth > 3 || r.int(3) === 0) return r.pick(atoms);
      if (r.int(2) === 0) return Array.from({ length: r.int(4) }, () => gen(depth + 1));
      return Object.fromEntries(Array.from({ length: r.int(5) }, () => [r.pick(["protocol", "type", "from", "to", "intent", "payload", "nonce", "timestamp", "messageNonce", "ciphertext", "x"]), gen(depth + 1)]));
    };
    for (let i = 0; i < 2000; i++) {
      const body = JSON.stringify(gen(0));
      const p = inspectInbound({ body, authorization: r.int(2) === 0 ? null : "INK-Ed25519 x", now: NOW }, policy);
      expect(p.ok).toBe(false);
    }
  }, 20_000);
});

describe("totality: functions taking wire input never throw", () => {
  test("junk in every wire-input position", async () => {
    const ink = await import("../../src/ink/index.ts");
    const profiles = await import("../../src/ink/profiles.ts");
    const JUNK: unknown[] = [undefined, null, 0, -1, NaN, Infinity, "", "x", "\ud800", "z6Mk", "INK-Ed25519 ", [], [null], {}, { a: undefined }, { protocol: "ink/0.1", type: "network.svc.encrypted" }, new Uint8Array(3), new Uint8Array(32), "2026-01-01T00:00:00Z"];
    const pk = alice.publicKey;
    const keys = resolveSenderKeys({ agentId: ALICE });
    const valid = buildSignedEnvelope(draft(), alice.secretKey, WORDMARK);
    if (!valid.ok) throw new Error("env");
    const out = prepareOutbound({ envelope: valid.envelope, recipient: { agentId: BOB, endpoint: ENDPOINT }, secretKey: alice.secretKey, wordmark: WORDMARK });
    if (!out.ok) throw new Error("out");
    const pending = inspectInbound({ body: out.bodyText, authorization: out.authorization, now: NOW }, policy);
    if (!pending.ok) throw new Error(pending.reason);
    const calls: ((x: any) => unknown)[] = [
      (x) => ink.authenticateInbound(pending, { keys: x, replay: x, decryptionKeys: x, verifier: undefined }),
      (x) => ink.authenticateInbound(pending, { keys, replay: { store: x }, decryptionKeys: x }),
      (x) => ink.parseRawBody(x),
      (x) => ink.parseAuthorizationHeader(x),
      (x) => ink.normalizePrincipal(x),
      (x) => ink.agentIdPublicKey(x),
      (x) => ink.decodeMultibaseKey(x),
      (x) => ink.decodeEd25519PublicKey(x),
      (x) => ink.parseTimestamp(x),
      (x) => ink.parseHandshakeTimestamp(x),
      (x) => ink.canonicalize(x),
      (x) => ink.validateAgentCard(x),
      (x) => ink.checkCardFetchResponse(x),
      (x) => ink.checkCardFetchResponse({ status: 200, contentType: x, contentLength: x, body: x, requestedAgentId: x, resolutionDid: x }),
      (x) => ink.isJsonContentType(x),
      (x) => ink.parseEnvelope(x),
      (x) => ink.validateIntentPayload("ask", x),
      (x) => ink.validateConnectionPayload(x, x),
      (x) => ink.checkIntentDisposition(x, x),
      (x) => ink.checkPlaintextConfidentiality(x, x),
      (x) => ink.isValidIntentName(x),
      (x) => ink.isValidEndpointUrl(x),
      (x) => ink.endpointPath(x),
      (x) => ink.classifyHost(x),
      (x) => ink.openEnvelope({ envelope: x, recipientSecretKeys: x, recipientDid: x, wordmark: "svc" }),
      (x) => ink.openEnvelope(x),
      (x) => ink.verifyBody(x, pk, "svc"),
      (x) => ink.verifyBody({ signature: x, protocol: x }, x, "svc"),
      (x) => ink.verifyTransportSignature(x, x, pk),
      (x) => ink.verifyTransportSignature({ method: x, path: x, recipientDid: x, body: x, timestamp: x }, "A".repeat(86), pk),
      (x) => ink.buildSignatureBase(x),
      (x) => ink.decodeSignature(x),
      (x) => ink.checkReplay({ timestamp: x, nonce: x, now: NOW, seen: () => false }),
      (x) => ink.verifyDiscoveryQuery({ raw: x, audience: x, now: NOW, publicKey: pk, replay: ink.createMemoryNonceStore(), wordmark: "svc" }),
      (x) => ink.verifyDiscoveryQuery({ envelope: x, audience: "a", now: NOW, publicKey: pk, replay: ink.createMemoryNonceStore(), wordmark: "svc" }),
      (x) => profiles.validateHandshakeMessage(x, "svc"),
      (x) => profiles.verifyAuditEventChain(x),
      (x) => profiles.auditEventHash(x),
      (x) => profiles.auditLeafHash(x),
      (x) => profiles.verifyAuditEventSignature(x, keys),
      (x) => profiles.verifyAuditResponse({ response: x, responderKeys: keys, atMs: NOW, eventKeys: () => keys, wordmark: "svc" }),
      (x) => profiles.messageHash(x),
      (x) => ink.inspectInbound({ body: x, authorization: x, now: NOW }, policy),
      (x) => ink.decideInbound({ body: '{"a":1}', authorization: x, now: NOW }, policy, { keys: x, replay: x }),
      (x) => ink.verifyWithSenderKeys(x, NOW, x, () => true),
      (x) => ink.verifyWithSenderKeys({ kind: "key-set", source: "card", keys: [x] }, NOW, null, () => true),
      (x) => ink.isKeyUsableAt({ keyId: "k", publicKey: pk, status: x, validFrom: x, validUntil: x, revokedAt: x }, NOW),
      (x) => ink.selectProtocolVersion(x, x),
      (x) => ink.nobleStrictVerifier(x, x, x),
      (x) => profiles.verifyFirstContact({ cardFetch: x, clientSupportedVersions: x, now: NOW, nonceStore: ink.createMemoryNonceStore(), request: x, response: x, wordmark: "svc" }),
    ];
    for (const [i, call] of calls.entries()) {
      for (const x of JUNK) {
        let threw: unknown = null;
        try {
          call(x);
        } catch (e) {
          threw = String(e);
        }
        expect({ call: i, x: String(x), threw }).toEqual({ call: i, x: String(x), threw: null });
      }
    }
  });
});
