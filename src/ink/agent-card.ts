// Agent Card schema (INK §11). The top level and the `discovery` descriptor are tolerant:
// unknown members are ignored and preserved (the card proof covers them).
import * as v from "valibot";
import { isValidEndpointUrl } from "./endpoint-url.ts";
import { REGISTERED_INTENTS } from "./intents.ts";
import { type KeyKind, decodeMultibaseKey } from "./multibase.ts";
import { ProfileSnapshot } from "./payloads.ts";
import { check, loose, positiveInt, str, strictTimestamp, text } from "./schema-kit.ts";

const VISIBILITY = ["public", "network_only", "capability_gated", "private"] as const;
export type Visibility = (typeof VISIBILITY)[number];

const endpointUrl = v.pipe(v.string(), v.check((s: string) => isValidEndpointUrl(s), "endpoint URL grammar"));
// INK §11: `z` prefix, ≤128 units, and (0.19 role rule, §2.3) it must decode to 32 bytes under
// the multicodec of its role: Ed25519 (0xed01) for signing slots and the top-level legacy key,
// X25519 (0xec01) for encryption slots. A key of the other role rejects the whole card.
const multibaseKey = (kind: KeyKind) =>
  v.pipe(
    v.string(),
    v.startsWith("z"),
    v.maxLength(128),
    v.check((s: string) => decodeMultibaseKey(s)?.kind === kind, `expected a multibase ${kind === "ed25519" ? "Ed25519" : "X25519"} key`),
  );
// Card capability arrays use the registered names ([C1]: vector bad-intent-enum-rejects).
const intentList = v.pipe(v.array(v.picklist(REGISTERED_INTENTS)), v.maxLength(32));

/** One entry of `keys.signing` / `keys.encryption` (INK §10); the slot checks the key's role. */
export const CardKeyEntry = loose({
  keyId: text(128),
  algorithm: v.picklist(["Ed25519", "X25519"]),
  publicKeyMultibase: v.pipe(v.string(), v.startsWith("z"), v.maxLength(128)),
  status: v.picklist(["active", "retired", "revoked"]),
  validFrom: strictTimestamp,
  validUntil: v.optional(strictTimestamp),
  revokedAt: v.optional(strictTimestamp),
  // INK §10 gives revokeReason no cap, §11 none for supportedTransports: the card's 64 KiB bounds them.
  revokeReason: v.optional(v.string()),
});
export type CardKeyEntry = v.InferOutput<typeof CardKeyEntry>;

const roleKey = { Ed25519: multibaseKey("ed25519"), X25519: multibaseKey("x25519") };

const keyList = (algorithm: "Ed25519" | "X25519") =>
  v.pipe(
    v.array(CardKeyEntry),
    v.maxLength(32),
    // 0.19 role rule: a slot holds only its own algorithm, in label and in key bytes.
    v.check((keys) => keys.every((k) => k.algorithm === algorithm), `${algorithm} keys only`),
    v.check((keys) => keys.every((k) => v.is(roleKey[algorithm], k.publicKeyMultibase)), `${algorithm} key bytes only`),
    v.check((keys) => new Set(keys.map((k) => k.keyId)).size === keys.length, "keyIds must be unique"),
  );

export const CardDiscovery = v.pipe(
  loose({
    enabled: v.boolean(),
    scope: v.picklist(VISIBILITY),
    tags: v.optional(v.pipe(v.array(v.pipe(v.string(), v.minLength(1), v.maxLength(64))), v.maxLength(32))),
    queryable: v.optional(v.boolean()),
    updatedAt: v.optional(strictTimestamp),
  }),
);

/** Agent Card (INK §11); the inferred type keeps unknown members as `unknown`. */
export const AgentCard = v.pipe(
  loose({
    protocol: v.literal("ink/0.1"),
    agentId: text(512),
    handle: str(256),
    displayName: str(200),
    ownerDid: v.optional(str(512)),
    ownerHandle: v.optional(str(256)),
    atprotoRecordUri: v.optional(str(2048)),
    endpoint: endpointUrl,
    inboxEndpoint: v.optional(endpointUrl),
    publicKeyMultibase: multibaseKey("ed25519"),
    profileSnapshot: v.optional(ProfileSnapshot),
    capabilities: loose({
      intentsAccepted: intentList,
      intentsSent: intentList,
      receipts: v.optional(
        loose({
          send: v.boolean(),
          dispositions: v.optional(
            v.pipe(v.array(v.picklist(["received", "delivered", "acted", "rejected", "expired"])), v.maxLength(16)),
          ),
        }),
      ),
      auditExchange: v.optional(v.boolean()),
      thirdPartyAudit: v.optional(
        loose({
          services: v.pipe(
            v.array(loose({ endpoint: endpointUrl, did: str(512), publicKey: str(256) })),
            v.maxLength(16),
          ),
          submitPolicy: v.picklist(["all", "high_value", "none"]),
        }),
      ),
    }),
    availability: loose({
      timezone: str(64),
      meetingHours: v.optional(str(200)),
      responseSla: v.optional(str(200)),
    }),
    keys: v.optional(
      loose({
        signing: v.optional(keyList("Ed25519")),
        encryption: v.optional(keyList("X25519")),
      }),
    ),
    currentSigningKeyId: v.optional(str(128)),
    currentEncryptionKeyId: v.optional(str(128)),
    keySetVersion: v.optional(positiveInt),
    // Advisory (INK §16): not checked against the version enum, so a future minor never breaks a card.
    supportedProtocolVersions: v.optional(v.pipe(v.array(str(16)), v.maxLength(8))),
    visibility: v.optional(v.picklist(VISIBILITY)),
    discovery: v.optional(CardDiscovery),
    governance: v.optional(
      loose({
        maxAcceptedDelegationDepth: v.optional(positiveInt),
        supportedTransports: v.optional(v.array(v.string())),
        supportsCapabilityGatedDiscovery: v.optional(v.boolean()),
        handshakeBudget: v.optional(
          loose({
            maxChallengesPerCorrelation: v.optional(positiveInt),
            maxIntentsPerMinute: v.optional(positiveInt),
          }),
        ),
      }),
    ),
    cardSignature: v.optional(loose({ keyId: text(128), signature: v.pipe(v.string(), v.regex(/^[A-Za-z0-9_-]{86}$/)) })),
    rotationChain: v.optional(v.pipe(v.array(v.unknown()), v.maxLength(32))),
    updatedAt: v.optional(strictTimestamp),
  }),
  v.check((c) => c.inboxEndpoint === undefined || c.inboxEndpoint === c.endpoint, "inboxEndpoint must equal endpoint"),
  v.check((c) => c.discovery === undefined || scopeWithin(c.discovery.scope, c.visibility ?? "public"), "discovery scope exceeds visibility"),
);
export type AgentCard = v.InferOutput<typeof AgentCard>;

export type CardValidation = { ok: true; card: AgentCard } | { ok: false; reason: "invalid_card"; issue: string };

/**
 * Validate an Agent Card (INK §11). On success `card` is the input object itself, so unknown
 * members stay exactly as served. No clock, keys or signatures are involved.
 */
export function validateAgentCard(card: unknown): CardValidation {
  const r = check(AgentCard, card);
  return r.ok ? { ok: true, card: card as AgentCard } : { ok: false, reason: "invalid_card", issue: r.issue };
}

// Exposure order: a discovery descriptor may narrow, never widen, the card's visibility.
const EXPOSURE: Record<Visibility, number> = { public: 3, network_only: 2, capability_gated: 1, private: 0 };

function scopeWithin(scope: Visibility, visibility: Visibility): boolean {
  return EXPOSURE[scope] <= EXPOSURE[visibility];
}
