// The intent envelope (INK §3.1): a strict surface — unknown top-level members reject — whose
// `protocol` is the closed set {ink/0.1, ink/0.2}. Structure is checked before any curve work.
import * as v from "valibot";
import { isPlainObject } from "./bytes.ts";
import { isValidIntentName } from "./intents.ts";
import { canonicalize } from "./jcs.ts";
import { check, str, strict, text } from "./schema-kit.ts";

export const ENVELOPE_PROTOCOLS = ["ink/0.1", "ink/0.2"] as const;
export type EnvelopeProtocol = (typeof ENVELOPE_PROTOCOLS)[number];

export const Provenance = strict({
  origin: v.picklist(["human", "agent_approved", "agent_autonomous"]),
  extensionId: v.optional(str(256)),
  installationId: v.optional(v.pipe(v.string(), v.uuid())),
});

/**
 * Intent envelope schema. `timestamp` and `nonce` are optional here and required at receipt by
 * transport auth; `createdAt` and `expiresAt` are only length-capped, as in the reference ([C6], [C8]).
 */
export const IntentEnvelope = strict({
  protocol: v.picklist(ENVELOPE_PROTOCOLS),
  id: text(256),
  correlationId: text(256),
  createdAt: str(64),
  from: text(512),
  to: text(512),
  intent: v.pipe(v.string(), v.check((s: string) => isValidIntentName(s), "intent grammar")),
  payload: v.custom<Record<string, unknown>>(isPlainObject, "payload must be a JSON object"),
  signature: text(256),
  expiresAt: v.optional(str(64)),
  signingKeyId: v.optional(str(128)),
  timestamp: v.optional(str(64)),
  nonce: v.optional(str(256)),
  provenance: v.optional(Provenance),
});
export type IntentEnvelope = v.InferOutput<typeof IntentEnvelope>;

export type EnvelopeReason = "invalid_envelope" | "unsupported_protocol_version";

export type EnvelopeParse = { ok: true; envelope: IntentEnvelope } | { ok: false; reason: EnvelopeReason; issue: string };

/**
 * Check a parsed value against the envelope schema plus JCS safety (safe integers, no lone
 * surrogates, complexity bounds). A `protocol` string outside the set is
 * `unsupported_protocol_version` (never inferred from the major, INK §16).
 */
export function parseEnvelope(value: unknown): EnvelopeParse {
  const schema = checkEnvelopeSchema(value);
  if (!schema.ok) return schema;
  const jcs = canonicalize(value);
  if (!jcs.ok) return { ok: false, reason: "invalid_envelope", issue: `canonical form: ${jcs.reason}` };
  // The schema's output drops nothing from a strict object, but keep the caller's object itself.
  return { ok: true, envelope: value as IntentEnvelope };
}

/**
 * Schema only, without the canonical-form check (the receiver canonicalizes once itself).
 * A hand-written equivalent of `IntentEnvelope` for the hot path; a property test keeps the two
 * in agreement.
 */
export function checkEnvelopeSchema(value: unknown): { ok: true } | { ok: false; reason: EnvelopeReason; issue: string } {
  if (!isPlainObject(value)) return bad("not a JSON object");
  const protocol = value.protocol;
  if (typeof protocol === "string" && protocol !== "ink/0.1" && protocol !== "ink/0.2") {
    return { ok: false, reason: "unsupported_protocol_version", issue: protocol.slice(0, 32) };
  }
  for (const key in value) {
    if (!Object.prototype.hasOwnProperty.call(FIELDS, key)) return bad(`${key}: unknown member`);
  }
  if (protocol !== "ink/0.1" && protocol !== "ink/0.2") return bad("protocol: required string");
  for (const [key, min, max, required] of STRING_FIELDS) {
    const v = value[key];
    if (v === undefined) {
      if (required) return bad(`${key}: required`);
      continue;
    }
    if (typeof v !== "string" || v.length < min || v.length > max) return bad(`${key}: invalid`);
  }
  if (!isValidIntentName(value.intent)) return bad("intent: intent grammar");
  if (!isPlainObject(value.payload)) return bad("payload: must be a JSON object");
  if (value.provenance !== undefined) {
    const p = check(Provenance, value.provenance);
    if (!p.ok) return bad(`provenance.${p.issue}`);
  }
  return { ok: true };
}

// [name, min, max, required] in UTF-16 units, mirroring `IntentEnvelope`.
const STRING_FIELDS: readonly (readonly [string, number, number, boolean])[] = [
  ["id", 1, 256, true],
  ["correlationId", 1, 256, true],
  ["createdAt", 0, 64, true],
  ["from", 1, 512, true],
  ["to", 1, 512, true],
  ["intent", 0, Infinity, true],
  ["signature", 1, 256, true],
  ["expiresAt", 0, 64, false],
  ["signingKeyId", 0, 128, false],
  ["timestamp", 0, 64, false],
  ["nonce", 0, 256, false],
];
const FIELDS = Object.fromEntries(Object.keys(IntentEnvelope.pipe[1].entries).map((k) => [k, true]));

function bad(issue: string): { ok: false; reason: "invalid_envelope"; issue: string } {
  return { ok: false, reason: "invalid_envelope", issue };
}
