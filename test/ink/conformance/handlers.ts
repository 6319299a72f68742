// One handler per conformance-v1 category: turn a case's `input` into the outcome our core
// decides, shaped like `expect` (result plus any pinned members). Handlers only adapt shapes;
// every decision is made by src/ink.
import {
  authenticateAgentCard,
  auditLeafHash,
  canonicalize,
  checkCardFetchResponse,
  checkIntentDisposition,
  checkPlaintextConfidentiality,
  checkReplay,
  classifyHost,
  createMemoryNonceStore,
  decodeEd25519PublicKey,
  type Ed25519Verifier,
  type SigningKeyEntry,
  formatCheckpoint,
  isValidIntentName,
  normalizePrincipal,
  openEnvelope,
  parseAuthorizationHeader,
  parseCheckpoint,
  parseRawBody,
  parseTimestamp,
  validateAgentCard,
  validateConnectionPayload,
  validateHandshakeMessage,
  verifyConsistencyProof,
  verifyDiscoveryQuery,
  verifyFirstContact,
  verifyTransportSignature,
  verifyWithSenderKeys,
} from "../../../src/ink/index.ts";
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

export type Outcome = { result: "accept" | "reject"; [member: string]: unknown };
export type Handler = (input: Record<string, any>, verifier: Ed25519Verifier) => Outcome;

const accept = (extra: Record<string, unknown> = {}): Outcome => ({ result: "accept", ...extra });
const reject = (extra: Record<string, unknown> = {}): Outcome => ({ result: "reject", ...extra });
const verdict = (ok: boolean): Outcome => (ok ? accept() : reject());

/** The vectors are reference INK: run them in `tulpa` mode. */
const WORDMARK = "tulpa" as const;

export const HANDLERS: Record<string, Handler> = {
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

  "agent-card": (i) => verdict(validateAgentCard(i.card).ok),

  "agent-card-fetch": (i) =>
    verdict(
      checkCardFetchResponse({
        status: i.status,
        contentType: i.contentType,
        contentLength: i.contentLength,
        body: hex(i.bodyHex),
        requestedAgentId: i.requestedAgentId,
        resolutionDid: i.resolutionDid,
      }).ok,
    ),

  "agent-card-signature": (i, verifier) => cardTrust(i, verifier),

  // Staged: the vectors carry the flag explicitly (on, or off over a 1.0 profile input).
  "agent-card-signature-phase-c": (i, verifier) => cardTrust(i, verifier),

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

  "authorization-header": (i) => {
    const r = parseAuthorizationHeader(i.header);
    return r.ok ? accept({ signature: r.signature, ...(r.keyId === null ? {} : { keyId: r.keyId }) }) : reject({ reason: r.reason });
  },

  "connection-payload": (i) => verdict(validateConnectionPayload(i.kind, i.payload).ok),

  "discovery-query-envelope": (i, verifier) => {
    const store = createMemoryNonceStore(
      (i.seenNonces ?? []).map((s: { from: string; nonce: string }) => [principalOf(s.from), s.nonce] as const),
    );
    const r = verifyDiscoveryQuery({
      ...(i.envelopeRaw === undefined ? { envelope: i.envelope } : { raw: i.envelopeRaw }),
      audience: i.audience,
      now: parseTimestamp(i.now) ?? Number.NaN,
      publicKey: hex(i.publicKeyHex),
      replay: store,
      wordmark: WORDMARK,
      verifier,
    });
    return r.ok ? accept() : reject({ reason: r.reason });
  },

  "encryption-required": (i) => {
    const r = checkPlaintextConfidentiality(i.envelope, i.extraConfidentialIntents);
    return r.ok ? accept() : reject({ reason: r.reason });
  },

  "first-contact-transcript": (i, verifier) => {
    const req = i.request;
    const store = createMemoryNonceStore((i.seenNonces as string[]).map((n) => [principalOf(req.signInput.body.from), n] as const));
    const r = verifyFirstContact({
      cardFetch: { ...i.cardFetch, body: i.cardFetch.bodyRaw, resolutionDid: null },
      clientSupportedVersions: i.clientSupportedVersions,
      now: parseTimestamp(i.receiverClock) ?? Number.NaN,
      nonceStore: store,
      request: { signInput: req.signInput, signature: req.signature, senderPublicKey: hex(req.senderPublicKeyHex) },
      response: { signInput: i.response.signInput, signature: i.response.signature },
      wordmark: WORDMARK,
      verifier,
    });
    return r.ok ? accept({ canonicalString: r.version }) : reject({ step: r.step, why: r.reason });
  },

  "handshake-message": (i) => verdict(validateHandshakeMessage(i.message, WORDMARK).ok),

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

  "intent-vocabulary": (i) => {
    if ("intent" in i) return verdict(isValidIntentName(i.intent));
    const r = checkIntentDisposition(i.envelope, i.supportedIntents, i.extraConfidentialIntents);
    return r.ok ? accept() : reject({ reason: r.reason });
  },

  "jcs-number": (i) => {
    const gate = parseRawBody(i.bodyRaw);
    if (!gate.ok) return reject({ why: gate.reason });
    const jcs = canonicalize(gate.value);
    return jcs.ok ? accept({ canonicalString: jcs.text }) : reject({ why: jcs.reason });
  },

  "key-rotation": (i, verifier) => {
    const si = i.signInput;
    const keys = (i.keys as Record<string, unknown>[]).map((k) => ({ ...k, keyId: k.keyId as string, status: k.status, publicKey: hex(k.publicKeyHex as string) }));
    const r = verifyWithSenderKeys(
      { kind: "key-set", source: "card", keys },
      parseTimestamp(si.timestamp) ?? Number.NaN,
      i.hintKeyId ?? null,
      (pk) => verifyTransportSignature(si, i.signature, pk, verifier),
      { liveAuth: i.liveAuth === true, allowRetiredForLiveAuth: i.liveAuthAllowRetired === true },
    );
    return r.ok ? accept({ keyId: r.keyId, keyStatus: r.keyStatus }) : reject({ reason: r.reason });
  },

  "merkle-checkpoint": (i) => {
    const r = parseCheckpoint(i.body);
    return r.ok ? accept({ canonicalString: formatCheckpoint(r.checkpoint) }) : reject({ why: r.reason });
  },

  "merkle-consistency": (i) => {
    const r = verifyConsistencyProof({ first: i.first, firstRoot: i.firstRoot, second: i.second, secondRoot: i.secondRoot, proof: i.proof });
    return r.ok ? accept() : reject({ why: r.reason });
  },

  "merkle-leaf": (i) => {
    const gate = parseRawBody(i.eventRaw, 4 * 1024 * 1024);
    if (!gate.ok) return reject({ why: gate.reason });
    const leaf = auditLeafHash(gate.value);
    return leaf === null ? reject() : accept({ leafHash: leaf });
  },

  "payload-encryption": (i) => {
    const r = openEnvelope({
      envelope: i.envelope,
      recipientSecretKeys: hex(i.recipientPrivateKeyHex),
      recipientDid: i.recipientDid,
      wordmark: WORDMARK,
    });
    if (!r.ok) return reject({ why: r.reason });
    const jcs = canonicalize(r.inner);
    return jcs.ok ? accept({ canonicalString: jcs.text }) : reject();
  },

  "principal-normalization": (i) => {
    const r = normalizePrincipal(i.agentId);
    return r.ok ? accept({ canonicalPrincipal: r.principal }) : reject();
  },

  "private-hostname": (i) => verdict(classifyHost(i.hostname) === "public"),

  "replay-freshness": (i) => {
    const x = i.replay;
    const r = checkReplay({
      timestamp: x.messageTimestamp,
      nonce: x.nonce,
      now: parseTimestamp(x.receiverClock) ?? Number.NaN,
      seen: (n) => (x.previouslySeenNonces as string[]).includes(n),
    });
    return r.ok ? accept() : reject({ reason: r.reason });
  },

  "signature-base": (i, verifier) => verdict(verifyTransportSignature(i.signInput, i.signature, hex(i.publicKeyHex), verifier)),

  "signed-body-utf8": (i) => {
    const r = parseRawBody(hex(i.bodyHex));
    return r.ok ? accept() : reject({ why: r.reason });
  },

  "timestamp-validity": (i) => {
    const ms = parseTimestamp(i.timestamp);
    return ms === null ? reject() : accept({ epochMs: ms });
  },
};

/** Categories whose decision involves an Ed25519 verify: run under every backend. */
export const SIGNATURE_CATEGORIES = new Set([
  "agent-authorization",
  "authorization-chain",
  "authorization-grant",
  "audit-query-response",
  "inclusion-receipt",
  "agent-card-signature",
  "agent-card-signature-phase-c",
  "discovery-query-envelope",
  "first-contact-transcript",
  "handshake-transport-signature",
  "key-rotation",
  "signature-base",
]);

/**
 * INK §13 card decision. The reference's `profile` input ("1.0") means Phase C rules unless an
 * explicit `enforcePhaseC` says otherwise (vector phase-c-off-overrides-1-0-profile-accept): our
 * core takes only the flag, so the adaptation is here.
 */
function cardTrust(i: Record<string, any>, verifier: Ed25519Verifier): Outcome {
  const o = i.options ?? {};
  const did = o.didVerificationKeys;
  const r = authenticateAgentCard(i.card, {
    agentId: i.agentId,
    cachedCard: o.cachedCard ?? null,
    didWeb: did === undefined ? null : did.status === "resolved" ? { status: "resolved", keys: (did.verificationKeys as string[]).flatMap((k) => decodeEd25519PublicKey(k) ?? []) } : { status: "unavailable" },
    enforcePhaseC: typeof o.enforcePhaseC === "boolean" ? o.enforcePhaseC : o.profile === "1.0",
    verifier,
  });
  const extra = "auditEvent" in r && r.auditEvent !== undefined ? { auditEvent: r.auditEvent } : {};
  return r.ok ? accept({ reason: r.reason, ...extra }) : reject({ reason: r.reason, ...extra, why: r.issue });
}

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

function principalOf(agentId: string): string {
  const r = normalizePrincipal(agentId);
  return r.ok ? r.principal : `invalid:${agentId}`;
}
