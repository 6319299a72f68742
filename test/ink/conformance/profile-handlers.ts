// Handlers for the optional profiles' categories (src/ink/profiles.ts): audit, authorization,
// delegation, containment signatures. Same rule as handlers.ts: adapt shapes, decide nothing.
import { createMemoryNonceStore, parseTimestamp, type SigningKeyEntry } from "../../../src/ink/index.ts";
import {
  deriveChallengeGrantId,
  verifyAuditQueryResponse,
  verifyAuthorizationChallenge,
  verifyAuthorizationGrant,
  verifyDelegationChain,
  verifyInclusionReceipt,
  verifySignedHandshake,
} from "../../../src/ink/profiles.ts";
import { hex } from "./fixtures.ts";
import { accept, type Handler, principalOf, reject, WORDMARK } from "./outcome.ts";

export const PROFILE_HANDLERS: Record<string, Handler> = {
  "agent-authorization": (i, verifier) => {
    // derived-id-* cases carry a bare challenge and pin only the derivation.
    if (i.keys === undefined) {
      const id = deriveChallengeGrantId(i.challenge);
      return id === null ? reject() : accept({ derivedGrantId: id });
    }
    const r = verifyAuthorizationChallenge({
      ...(i.challengeRaw === undefined ? { challenge: i.challenge } : { raw: i.challengeRaw }),
      rpKeys: keyEntries(i.keys),
      now: parseTimestamp(i.now) ?? Number.NaN,
      wordmark: WORDMARK,
      verifier,
    });
    return r.ok ? accept({ derivedGrantId: r.grantId }) : reject({ reason: r.reason, why: r.issue });
  },

  "audit-query-response": (i, verifier) => {
    const keys = i.agentKeysHex as Record<string, string>;
    const r = verifyAuditQueryResponse({
      response: i.response,
      witnessPublicKey: hex(i.witnessPublicKeyHex),
      expectedMessageId: i.expectedMessageId,
      expectedRequester: i.expectedRequester,
      ...(i.expectedServiceDid === undefined ? {} : { expectedServiceDid: i.expectedServiceDid }),
      // The vectors pin one key per agent: a single pinned key.
      agentKeys: (agentId) => (Object.hasOwn(keys, agentId) ? { kind: "bootstrap", publicKey: hex(keys[agentId] as string) } : null),
      ...(i.laterCheckpoint === undefined ? {} : { laterCheckpoint: i.laterCheckpoint }),
      wordmark: WORDMARK,
      verifier,
    });
    return r.ok ? accept() : reject({ why: r.reason });
  },

  "authorization-chain": (i, verifier) => {
    const keys = keyEntries(i.issuerKeys);
    const r = verifyDelegationChain({ chain: i.chain, issuerKeys: (_issuer, position) => (keys[position] ? [keys[position]] : []), ...presentation(i), wordmark: WORDMARK, verifier });
    return r.ok ? accept() : reject({ reason: r.reason, why: r.issue });
  },

  "authorization-grant": (i, verifier) => {
    const r = verifyAuthorizationGrant({
      ...(i.grantRaw === undefined ? { grant: i.grant } : { raw: i.grantRaw }),
      issuerKeys: keyEntries([{ publicKeyHex: i.issuerPublicKeyHex, status: "active" }]),
      ...(i.maxLifetimeMs === undefined ? {} : { maxLifetimeMs: i.maxLifetimeMs }),
      ...presentation(i),
      wordmark: WORDMARK,
      verifier,
    });
    return r.ok ? accept() : reject({ reason: r.reason, why: r.issue });
  },

  "handshake-transport-signature": (i, verifier) => {
    const r = verifySignedHandshake({ signInput: i.signInput, signature: i.signature, publicKey: hex(i.publicKeyHex) }, WORDMARK, verifier);
    return r.ok ? accept() : reject({ why: r.reason });
  },

  "inclusion-receipt": (i, verifier) => {
    const r = verifyInclusionReceipt({
      receipt: i.receipt,
      witnessPublicKey: hex(i.witnessPublicKeyHex),
      ...(Object.hasOwn(i, "event") ? { event: i.event } : {}),
      ...(Object.hasOwn(i, "eventHash") ? { eventHash: i.eventHash } : {}),
      ...(Object.hasOwn(i, "laterCheckpoint") ? { laterCheckpoint: i.laterCheckpoint } : {}),
      verifier,
    });
    return r.ok ? accept() : reject({ step: r.step, why: r.reason });
  },
};

/** The vectors' key lists ({keyId?, publicKeyHex, status, validFrom?, validUntil?}) as key entries. */
function keyEntries(keys: Array<Record<string, unknown>>): SigningKeyEntry[] {
  return keys.map((k, n) => ({ ...k, keyId: (k.keyId as string | undefined) ?? `k${n}`, publicKey: hex(k.publicKeyHex as string), status: k.status }));
}

/** The verifier's context of a grant or chain case: audience, clock, presenter, seen, revoked, owner. */
function presentation(i: Record<string, any>) {
  const pairs = (list: Array<{ issuer: string; grantId: string }> | undefined) => (list ?? []).map((p) => [principalOf(p.issuer), p.grantId] as const);
  const revoked = new Set(pairs(i.revokedGrants).map(([issuer, grantId]) => `${issuer}\n${grantId}`));
  return {
    audience: i.audience,
    now: parseTimestamp(i.now) ?? Number.NaN,
    ...(i.presenter === undefined ? {} : { presenter: i.presenter }),
    replay: createMemoryNonceStore(pairs(i.seenGrants)),
    isRevoked: (issuer: string, grantId: string) => revoked.has(`${issuer}\n${grantId}`),
    ownerVerified: i.verifiedOwner?.status === "verified",
  };
}
