import { checkFreshness, isKeyUsableAt, normalizePrincipal, parseDiscoveryQuery, parseTimestamp, verifyDiscoveryQuery, type DiscoveryQueryResult, type SenderKeys } from "../../../ink/index.ts";
import { nativeStrictVerifier } from "../../../security/ed25519-native.ts";
import type { With } from "../../context.ts";
import { ownIdentity } from "../../agent/own-identity.ts";
import type { SignedPeerRequest } from "../peer-requests.ts";
import { resolveInboundSenderKeys } from "./resolve-inbound-sender-keys.ts";
import type { Authenticated } from "./authenticated.ts";
import { claimNonceForFetch, isNonceSeen } from "./nonces.ts";

/**
 * A signed INK discovery-query envelope (INK §18), verified from the raw bytes in INK's order
 * (schema → signature → audience → freshness → (from, nonce) replay against the persisted nonce
 * table; the answering verb records the nonce). The requester's key: its card's active keys when
 * this node knows its card (a trusted base: recorded card URL, connection, did:web), otherwise the
 * genesis key of a key-derived id (INK §10 bootstrap).
 */
export async function authenticateDiscoveryQuery(ctx: With<"node" | "vault" | "peers">, input: SignedPeerRequest<"discovery_query">): Promise<Authenticated<"discovery_query">> {
  const now = ctx.clock.now();
  const own = ownIdentity(ctx.db, ctx.node);
  if (!own) return { ok: false, reason: "unknown_recipient" };
  // INK §18's first step before anything else: a malformed query looks up no key, fetches nothing.
  const shape = parseDiscoveryQuery({ raw: input.body }, ctx.node.wordmark);
  if (!shape.ok) return { ok: false, reason: "schema", ...(shape.issue ? { detail: shape.issue } : {}) };
  const env = shape.envelope;
  const principal = normalizePrincipal(env.from);
  if (!principal.ok) return { ok: false, reason: "schema", detail: "from" };
  // The checks that need no key (audience, freshness, an unused nonce) decide whether the
  // requester's card may be fetched; the answer still follows INK's order, with stored keys.
  const timestampMs = parseTimestamp(env.timestamp) ?? now;
  const cheap = env.to === own.agentId && checkFreshness(timestampMs, now) === "fresh" && claimNonceForFetch(ctx, principal.principal, env.nonce);
  const resolved = await resolveInboundSenderKeys(ctx, { from: env.from, principal: principal.principal, keyIdHint: null, network: cheap });
  let candidates = usableKeys(resolved.keys, timestampMs);
  if (candidates.length === 0) candidates = [new Uint8Array(32)]; // no usable key: the answer is `signature`
  // The replay step reads the nonce table only: the verb records the nonce, last, with its answer.
  const replay = { addIfAbsent: (scope: string, nonce: string) => !isNonceSeen(ctx.db, scope, nonce) };
  let result: DiscoveryQueryResult = { ok: false, reason: "signature" };
  // The envelope names no key: try each active key; only a signature failure moves on.
  for (const publicKey of candidates) {
    result = verifyDiscoveryQuery({ envelope: env, audience: [own.agentId], now, publicKey, replay, wordmark: ctx.node.wordmark, verifier: nativeStrictVerifier });
    if (result.ok || result.reason !== "signature") break;
  }
  if (!result.ok) return { ok: false, reason: result.reason, ...(result.issue ? { detail: result.issue } : {}), learned: resolved.learned };
  return { ok: true, principal: result.principal, agentId: env.from, keys: resolved.keys, card: resolved.card, nonce: env.nonce, request: result.envelope, learned: resolved.learned };
}

/** Live authentication: active keys usable at the envelope's time (retired keys sign no new request). */
function usableKeys(keys: SenderKeys, atMs: number): Uint8Array[] {
  if (keys.kind === "bootstrap") return [keys.publicKey];
  if (keys.kind === "none") return [];
  return keys.keys.filter((k) => k.status === "active" && isKeyUsableAt(k, atMs)).map((k) => k.publicKey);
}
