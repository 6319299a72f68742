// The first-contact transcript accept rule (INK §15): card fetch → version selection → signed
// connection_request verified by the receiver → accepted connection_response verified by the
// sender under the card's key. Each step must pass, in order.
import type { AgentCard } from "./agent-card.ts";
import { verifyBody } from "./body-signature.ts";
import { bindAgentCard } from "./card-binding.ts";
import { type CardFetchResponse, checkCardFetchResponse } from "./card-fetch.ts";
import { type Ed25519Verifier, nobleStrictVerifier } from "./ed25519.ts";
import { endpointPath } from "./endpoint-url.ts";
import { type EnvelopeProtocol, type IntentEnvelope, parseEnvelope } from "./envelope.ts";
import { senderKeysFromCard, verifyWithSenderKeys } from "./keys.ts";
import { validateIntentPayload } from "./payloads.ts";
import { normalizePrincipal } from "./principal.ts";
import { isReplayNonce, type NonceStore, recordNonce } from "./replay.ts";
import { selectProtocolVersion } from "./sender.ts";
import { checkFreshness, parseTimestamp } from "./timestamp.ts";
import { type SignInput, verifyTransportSignature } from "./transport.ts";
import type { Wordmark } from "./wordmark.ts";

export type SignedLeg = { signInput: SignInput; signature: string };

export type FirstContactInput = {
  /** The receiver's card as fetched by the sender. */
  cardFetch: CardFetchResponse;
  /** The sender's version preferences, most preferred first. */
  clientSupportedVersions: readonly string[];
  /** Receiver clock (epoch ms), used for the freshness of both messages. */
  now: number;
  /** The receiver's replay store (scope = canonical sender principal). */
  nonceStore: NonceStore;
  /** connection_request as POSTed by the sender, and the sender's verification key. */
  request: SignedLeg & { senderPublicKey: Uint8Array };
  /** connection_response POSTed back by the receiver (recipientDid = original sender). */
  response: SignedLeg;
  wordmark: Wordmark;
  verifier?: Ed25519Verifier;
};

export type FirstContactStep =
  | "card_fetch"
  | "version"
  | "request_structure"
  | "request_binding"
  | "request_signature"
  | "request_replay"
  | "response_structure"
  | "response_binding"
  | "response_signature";

export type FirstContactResult =
  | { ok: true; version: EnvelopeProtocol; card: AgentCard }
  | { ok: false; step: FirstContactStep; reason: string };

/** Run the whole transcript decision; the first failing step is reported. */
export function verifyFirstContact(input: FirstContactInput): FirstContactResult {
  const verifier = input.verifier ?? nobleStrictVerifier;
  const fetched = checkCardFetchResponse(input.cardFetch);
  if (!fetched.ok) return fail("card_fetch", fetched.reason);
  // Only the keys the card may bind to its id verify the response (INK §2.1, §13).
  const bound = bindAgentCard(fetched.card, fetched.proof);
  if (!bound.ok) return fail("card_fetch", bound.reason);
  const card = bound.card;
  const version = selectProtocolVersion(input.clientSupportedVersions, card.supportedProtocolVersions);
  if (version === null) return fail("version", "no common protocol version");

  // Request: structure before any signature work, then bindings, signatures, replay.
  const req = parseEnvelope(input.request.signInput?.body);
  if (!req.ok) return fail("request_structure", req.reason);
  const reqEnv = req.envelope;
  const reqBinding = bindLeg(input.request.signInput, reqEnv, version, "connection_request", card.agentId, input.now);
  if (reqBinding !== null) return fail("request_binding", reqBinding);
  if (input.request.signInput.path !== endpointPath(card.endpoint)) return fail("request_binding", "path is not the card endpoint's");
  const senderKey = input.request.senderPublicKey;
  if (!verifyTransportSignature(input.request.signInput, input.request.signature, senderKey, verifier)) {
    return fail("request_signature", "transport signature");
  }
  if (!verifyBody(reqEnv, senderKey, input.wordmark, verifier)) return fail("request_signature", "body signature");
  const principal = normalizePrincipal(reqEnv.from);
  if (!principal.ok) return fail("request_replay", "sender principal");
  const recorded = recordNonce(input.nonceStore, principal.principal, reqEnv.nonce as string);
  if (!recorded.ok) return fail("request_replay", recorded.reason);

  // Response: verified by the sender under the receiver's card key.
  const res = parseEnvelope(input.response.signInput?.body);
  if (!res.ok) return fail("response_structure", res.reason);
  const resEnv = res.envelope;
  const resBinding = bindLeg(input.response.signInput, resEnv, version, "connection_response", reqEnv.from, input.now);
  if (resBinding !== null) return fail("response_binding", resBinding);
  if (resEnv.from !== card.agentId) return fail("response_binding", "response not from the card's agent");
  if ((resEnv.payload as { status?: unknown }).status !== "accepted") return fail("response_binding", "status is not accepted");
  const keys = senderKeysFromCard(card);
  const auth = verifyWithSenderKeys(
    keys,
    parseTimestamp(resEnv.timestamp) ?? Number.NaN,
    resEnv.signingKeyId ?? null,
    (pk) => verifyTransportSignature(input.response.signInput, input.response.signature, pk, verifier),
    { liveAuth: true },
  );
  if (!auth.ok) return fail("response_signature", auth.reason);
  if (!verifyBody(resEnv, auth.publicKey, input.wordmark, verifier)) return fail("response_signature", "body signature");
  return { ok: true, version, card };
}

// Cross-field rules shared by both legs: version, intent, strict payload, recipient binding,
// transport timestamp == envelope timestamp, freshness, nonce grammar.
function bindLeg(
  signInput: SignInput,
  env: IntentEnvelope,
  version: EnvelopeProtocol,
  intent: string,
  recipient: string,
  now: number,
): string | null {
  if (env.protocol !== version) return "protocol is not the selected version";
  if (env.intent !== intent) return `intent is not ${intent}`;
  const payload = validateIntentPayload(intent, env.payload);
  if (!payload.ok) return `payload: ${payload.issue}`;
  if (env.to !== recipient || signInput.recipientDid !== recipient) return "recipient binding";
  if (signInput.method !== "POST") return "method";
  if (env.timestamp === undefined || signInput.timestamp !== env.timestamp) return "transport timestamp != envelope timestamp";
  const ts = parseTimestamp(env.timestamp);
  if (ts === null) return "invalid timestamp";
  const fresh = checkFreshness(ts, now);
  if (fresh !== "fresh") return fresh;
  if (!isReplayNonce(env.nonce)) return "nonce grammar";
  return null;
}

function fail(step: FirstContactStep, reason: string): FirstContactResult {
  return { ok: false, step, reason };
}
