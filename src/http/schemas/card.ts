import * as v from "valibot";

const KeyEntry = v.object({
  keyId: v.string(),
  algorithm: v.picklist(["Ed25519", "X25519"]),
  publicKeyMultibase: v.string(),
  status: v.picklist(["active", "retired", "revoked"]),
  validFrom: v.string(),
  validUntil: v.optional(v.string()),
  revokedAt: v.optional(v.string()),
});

/** Documentation of the INK Agent Card (INK §11); unknown members are allowed, as INK requires. */
export const AgentCardDoc = v.pipe(
  v.looseObject({
    protocol: v.literal("ink/0.1"),
    agentId: v.pipe(v.string(), v.regex(/^(svc|tulpa):z/)),
    handle: v.string(),
    displayName: v.string(),
    endpoint: v.pipe(v.string(), v.url()),
    publicKeyMultibase: v.string(),
    capabilities: v.looseObject({ intentsAccepted: v.array(v.string()), intentsSent: v.array(v.string()) }),
    availability: v.looseObject({ timezone: v.string(), meetingHours: v.optional(v.string()), responseSla: v.optional(v.string()) }),
    keys: v.object({ signing: v.array(KeyEntry), encryption: v.array(KeyEntry) }),
    currentSigningKeyId: v.string(),
    currentEncryptionKeyId: v.optional(v.string()),
    keySetVersion: v.number(),
    supportedProtocolVersions: v.array(v.string()),
    visibility: v.optional(v.string()),
    updatedAt: v.string(),
    rotationChain: v.optional(
      v.pipe(
        v.array(
          v.object({
            keySetVersion: v.number(),
            signing: v.array(v.object({ keyId: v.string(), publicKeyMultibase: v.string(), status: v.picklist(["active", "retired", "revoked"]) })),
            prevKeyId: v.nullable(v.string()),
            signature: v.string(),
          }),
        ),
        v.description("INK §13: one link per signing-key rotation, signed by the previously active key"),
      ),
    ),
    cardSignature: v.optional(
      v.pipe(
        v.object({ keyId: v.string(), signature: v.string() }),
        v.description("INK §13: Ed25519 over `ink/agent-card\n` + JCS(card minus cardSignature), by the current active signing key"),
      ),
    ),
  }),
  v.description("INK Agent Card"),
);
