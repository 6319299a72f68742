// Fixed personas and request builders for the receiver tests: alice sends, bob receives.
import { x25519 } from "@noble/curves/ed25519.js";
import {
  buildAuthorizationHeader,
  buildSignedEnvelope,
  deriveAgentId,
  type EnvelopeDraft,
  formatTimestamp,
  generateEd25519KeyPair,
  type InboundPolicy,
  signBody,
  signTransport,
  type Wordmark,
} from "../../src/ink/index.ts";

export const WORDMARK: Wordmark = "svc";
export const alice = generateEd25519KeyPair(new Uint8Array(32).fill(0xa1));
export const bob = generateEd25519KeyPair(new Uint8Array(32).fill(0xb0));
export const mallory = generateEd25519KeyPair(new Uint8Array(32).fill(0x66));
export const bobEncryption = new Uint8Array(32).fill(0xb2);
export const bobEncryptionPublic = x25519.getPublicKey(bobEncryption);
export const ALICE = deriveAgentId(alice.publicKey, WORDMARK);
export const BOB = deriveAgentId(bob.publicKey, WORDMARK);
export const NOW = Date.UTC(2026, 6, 1, 12, 0, 0);
export const TS = formatTimestamp(NOW);
export const PATH = "/ink/v1/inbound";
export const ENDPOINT = `https://bob.example${PATH}`;

export const policy: InboundPolicy = {
  ownAgentId: BOB,
  endpointPath: PATH,
  wordmark: WORDMARK,
  supportedIntents: ["ping", "ask", "schedule_meeting"],
  acceptsSealed: true,
};

let counter = 0;
/** A fresh valid unsigned envelope (unique nonce) from alice to bob. */
export function draft(overrides: Partial<EnvelopeDraft> = {}): EnvelopeDraft {
  counter++;
  return {
    protocol: "ink/0.1",
    id: `msg-${counter}`,
    correlationId: "thread-1",
    createdAt: TS,
    from: ALICE,
    to: BOB,
    intent: "ping",
    payload: { note: "hello" },
    timestamp: TS,
    nonce: `test-nonce-${String(counter).padStart(10, "0")}`,
    ...overrides,
  };
}

export type Raw = { body: Record<string, unknown>; bodyText: string; authorization: string };

/**
 * Sign an arbitrary body object as alice would (body signature, then transport signature over
 * PATH / BOB), bypassing the sender's own refusals so tests can craft any single defect.
 */
export function signedRequest(
  body: Record<string, unknown>,
  opts: { bodyKey?: Uint8Array; transportKey?: Uint8Array; keyId?: string; skipBodySignature?: boolean; recipientDid?: string; path?: string } = {},
): Raw {
  let signedBody = body;
  if (opts.skipBodySignature !== true) {
    const s = signBody(body, opts.bodyKey ?? alice.secretKey, WORDMARK);
    if (!s.ok) throw new Error("unsignable test body");
    signedBody = s.body;
  }
  const t = signTransport(
    { method: "POST", path: opts.path ?? PATH, recipientDid: opts.recipientDid ?? BOB, body: signedBody, timestamp: String(signedBody.timestamp ?? TS) },
    opts.transportKey ?? alice.secretKey,
  );
  if (!t.ok) throw new Error(`untransportable test body: ${t.detail}`);
  const header = buildAuthorizationHeader(t.signature, opts.keyId);
  if (!header.ok) throw new Error("header");
  return { body: signedBody, bodyText: JSON.stringify(signedBody), authorization: header.header };
}

/** mulberry32: a small, fast, seeded generator for bounded fuzz tests. */
export function rng(seed: number) {
  let a = seed >>> 0;
  const next = () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  const int = (n: number) => Math.floor(next() * n);
  const pick = <T>(xs: readonly T[]): T => xs[int(xs.length)] as T;
  return { next, int, pick };
}
export type Rng = ReturnType<typeof rng>;

/**
 * What sealing tests seal: a context_share from Alice to Bob, body-signed, and the seal input
 * around it (no backend: each test names the one it checks).
 */
export function sealInputFor(context: string, nonce: string) {
  const built = buildSignedEnvelope(
    { protocol: "ink/0.1", id: `m-${nonce}`, correlationId: `t-${nonce}`, createdAt: TS, from: ALICE, to: BOB, intent: "context_share", payload: { context, category: "general" }, timestamp: TS, nonce },
    alice.secretKey,
    WORDMARK,
  );
  if (!built.ok) throw new Error(built.reason);
  return { inner: built.envelope, senderDid: ALICE, recipientPublicKey: bobEncryptionPublic, timestamp: TS, messageNonce: `m${nonce}`, wordmark: WORDMARK };
}
