import { ingestStatements } from "../../../db/ingest-statements.ts";
import { readSnapshot } from "../../../db/read-snapshot.ts";
import {
  authenticateInbound,
  inspectInbound,
  REGISTERED_INTENTS,
  type InboundDecision,
  type InboundPending,
  type InboundPolicy,
  type SenderKeys,
} from "../../../ink/index.ts";
import { nativeStrictVerifier } from "../../../security/ed25519-native.ts";
import { preverify } from "../../../security/preverify.ts";
import { nativeEnvelopeCrypto } from "../../../security/envelope-crypto-native.ts";
import type { With } from "../../context.ts";
import { inkSignerAhead, messageReceived, signInkEventAhead, type SignedInkEvent } from "../../internal/ink-events-ahead.ts";
import { decryptionKeys } from "../../agent/decryption-keys.ts";
import { cachedOwnIdentity } from "../../agent/cached-own-identity.ts";
import { policyFromRow } from "../../policy/policy-from-row.ts";
import { cardVisibilityOf } from "../../agent/card-visibility-of.ts";
import { hasRelationship } from "../has-relationship.ts";
import type { SignedPeerRequest } from "../peer-requests.ts";
import { resolveInboundSenderKeys } from "./resolve-inbound-sender-keys.ts";
import type { Authenticated } from "./authenticated.ts";
import { claimNonceForFetch } from "./nonces.ts";

/**
 * An INK intent (INK §9): structure and transport checks on the raw bytes, the owner's block list
 * (a blocked sender makes the node fetch nothing), the sender's keys (card, or genesis key on first
 * contact; stored keys only for a nonce already seen), then the signatures and decryption.
 */
export async function authenticateIntent(ctx: With<"node" | "vault" | "peers" | "crypto">, input: SignedPeerRequest<"intent">): Promise<Authenticated<"intent">> {
  const now = input.receivedAt ?? ctx.clock.now();
  const own = cachedOwnIdentity(ctx.db, ctx.node);
  if (!own || input.pathAgentId !== own.agentId) return { ok: false, reason: "unknown_recipient" };
  const policy: InboundPolicy = { ownAgentId: own.agentId, endpointPath: own.endpointPath, wordmark: ctx.node.wordmark, supportedIntents: REGISTERED_INTENTS, acceptsSealed: true };
  const pending = inspectInbound({ body: input.body, authorization: input.authorization, now }, policy);
  // The reads before the verify, the sender's stored card included, share one read transaction
  // (db/read-snapshot.ts); resolving the keys (which may fetch and write) starts after it.
  const screened = readSnapshot(ctx.db, () => {
    // A private card (card-visibility.md): to anyone the node has no relationship with, the agent is
    // not here — the same 404 as an id this node does not host, whatever else is wrong with the request.
    const hidden = cardVisibilityOf(ctx.db) === "private";
    if (!pending.ok) return hidden ? refusal("unknown_recipient") : refusal(pending.reason, pending.detail);

    const q = ingestStatements(ctx.db);
    const owner = policyFromRow(q.policy.get());
    const connection = q.connectionByPrincipal.get(pending.principal) ?? null;
    if (hidden && !hasRelationship(ctx.db, pending.principal, connection)) return refusal("unknown_recipient");
    if (connection?.status === "blocked" || owner.blockedDids.includes(pending.principal)) return refusal("sender_blocked");

    // A replay (nonce already recorded) may still be answered nonce_replay in INK's order, but it
    // resolves keys from what is stored: it never makes the node fetch anything.
    // A copy of a request in flight counts as one: its nonce is claimed before any fetch.
    const replayed = !claimNonceForFetch(ctx, pending.principal, pending.nonce);
    // The key the audit event will be signed with ahead (below), read in this transaction rather than in one of its own,
    // only where that event will be signed: a plaintext intent (a sealed one's envelope is known after decryption),
    // verified on the worker pool (verify's `alongside`), with a batcher to sign on.
    const ahead = !replayed && pending.envelope !== null && ctx.peers.signatures.size > 0 && ctx.crypto.size > 0;
    const signer = ahead ? inkSignerAhead(ctx) : null;
    return { ok: true as const, pending, replayed, stored: q.peerCard.get(pending.principal), signer };
  });
  if (!screened.ok) return screened;
  const { replayed, pending: inspected, stored, signer } = screened;
  const resolved = await resolveInboundSenderKeys(ctx, { from: inspected.from, principal: inspected.principal, keyIdHint: inspected.keyIdHint, network: !replayed, stored });
  // The audit event the intent will be stored with (AUDIT §2), built now and signed in the same worker
  // batch as its two verifies: one round trip, not two. Dropped unless the intent is stored (its
  // chain's next event then goes on the real head: receive-intent.ts). Not for a nonce already seen.
  let audit: Promise<SignedInkEvent | null> | null = null;
  const envelope = inspected.envelope;
  const alongside = replayed || envelope === null ? null : () => void (audit = signInkEventAhead(ctx, inspected.principal, messageReceived(envelope, inspected.from), signer).catch(() => null));
  const decision = await verify(ctx, inspected, resolved.keys, input, policy, alongside);
  if (!decision.ok) return { ...refusal(decision.reason, decision.detail), learned: resolved.learned };
  return {
    ok: true,
    principal: inspected.principal,
    agentId: inspected.from,
    keys: resolved.keys,
    card: resolved.card,
    nonce: decision.nonce.value,
    request: { envelope: decision.envelope, sealed: decision.sealed, keyId: decision.keyId, replayed, audit },
    learned: resolved.learned,
  };
}

async function verify(ctx: With<"vault" | "peers">, pending: InboundPending, keys: SenderKeys, input: SignedPeerRequest, policy: InboundPolicy, alongside: (() => void) | null): Promise<InboundDecision> {
  // Decryption keys are read only for sealed bodies (the common plaintext path needs none).
  const context = { keys, verifier: nativeStrictVerifier, replay: { defer: true as const }, decryptionKeys: pending.sealed ? decryptionKeys(ctx.db, ctx.vault) : [], envelopeCrypto: nativeEnvelopeCrypto };
  // With spare cores, a plaintext intent's two signatures are verified on a worker thread while
  // this one serves other requests; the decision is then taken here with those verdicts (the same
  // nativeStrictVerifier's), so it is the one it would have been (security/preverify.ts).
  const pool = ctx.peers.signatures;
  if (pool.size > 0 && !pending.sealed) {
    const verified = preverify(pool, (verifier) => authenticateInbound(pending, { ...context, verifier })); // joins this turn's batch
    alongside?.();
    context.verifier = await verified;
  }
  const decision = authenticateInbound(pending, context);
  if (decision.ok || input.requestPath === policy.endpointPath || !SIGNATURE_FAILURES.has(decision.reason)) return decision;
  // A sender posting to /agents/:id/inbox may have signed that path instead of the card endpoint's.
  const alternative = inspectInbound({ body: input.body, authorization: input.authorization, now: input.receivedAt ?? ctx.clock.now() }, { ...policy, endpointPath: input.requestPath });
  if (!alternative.ok) return decision;
  const second = authenticateInbound(alternative, context);
  return second.ok ? second : decision;
}

const SIGNATURE_FAILURES = new Set<string>(["invalid_signature", "signature_verification_failed"]);

function refusal<R extends string>(reason: R, detail?: string): { ok: false; reason: R; detail?: string } {
  return detail === undefined ? { ok: false, reason } : { ok: false, reason, detail };
}
