// One handler per conformance-v1 category: turn a case's `input` into the outcome our core
// decides, shaped like `expect` (result plus any pinned members). Handlers only adapt shapes;
// every decision is made by src/ink. The optional profiles' handlers are in profile-handlers.ts.
import { authenticateAgentCard, canonicalize, checkCardFetchResponse, checkIntentDisposition, checkPlaintextConfidentiality, checkReplay, classifyHost, createMemoryNonceStore, decodeEd25519PublicKey, type Ed25519Verifier, isValidIntentName, normalizePrincipal, openEnvelope, parseAuthorizationHeader, parseRawBody, parseTimestamp, validateAgentCard, validateConnectionPayload, verifyDiscoveryQuery, verifyTransportSignature, verifyWithSenderKeys } from "../../../src/ink/index.ts";
import { nobleEnvelopeCrypto } from "../../../src/ink/encryption-noble.ts";
import { auditLeafHash, formatCheckpoint, parseCheckpoint, validateHandshakeMessage, verifyConsistencyProof, verifyFirstContact } from "../../../src/ink/profiles.ts";
import { hex } from "./fixtures.ts";
import { accept, type Handler, type Outcome, principalOf, reject, verdict, WORDMARK } from "./outcome.ts";
import { PROFILE_HANDLERS } from "./profile-handlers.ts";

export const HANDLERS: Record<string, Handler> = {
  ...PROFILE_HANDLERS,

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
      crypto: nobleEnvelopeCrypto,
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
