import * as v from "valibot";

const Tier = v.picklist(["transactional", "social", "personal"]);

export const InstallationDoc = v.object({
  installationId: v.pipe(v.string(), v.description("UUID")),
  extensionId: v.string(),
  name: v.string(),
  version: v.string(),
  manifestHash: v.string(),
  source: v.picklist(["inline", "url", "marketplace"]),
  status: v.pipe(v.picklist(["active", "pending_update", "uninstalled"]), v.description("pending_update: a newer manifest asks for more and waits for accept-update; the old grant keeps running")),
  suspended: v.pipe(v.boolean(), v.description("true while this node's marketplace suspends the extension: its requests and renewals answer 401 installation_inactive")),
  permissions: v.array(v.string()),
  layers: v.array(v.string()),
  maxAutonomyTier: Tier,
  keys: v.array(v.object({ keyId: v.string(), publicKeyMultibase: v.string(), status: v.picklist(["active", "retired"]), graceUntil: v.optional(v.string()) })),
  pendingUpdate: v.nullable(v.object({ version: v.string(), manifestHash: v.string() })),
  tokenExpiresAt: v.nullable(v.string()),
  createdAt: v.string(),
  updatedAt: v.string(),
});

export const InstalledDoc = v.object({
  installation: InstallationDoc,
  delegationToken: v.pipe(v.string(), v.description("base64url(JCS(payload)).base64url(signature); hand it to the extension (docs/extensions.md)")),
  tokenExpiresAt: v.string(),
});

/** 4xx of the extension API: `error` names the failed check or rule; `required` the missing permission. */
/** An INK audit record (AUDIT.md §2), as /ext/v1/audit and the owner's audit trail serve it. */
export const AuditEventDoc = v.looseObject({
  id: v.string(),
  version: v.literal("ink-audit/1"),
  agentId: v.string(),
  sequence: v.number(),
  previousEventHash: v.nullable(v.string()),
  eventType: v.string(),
  timestamp: v.string(),
  agentSignature: v.string(),
});

export const InstallationAuditDoc = v.object({
  events: v.array(AuditEventDoc),
  total: v.number(),
  limit: v.number(),
  offset: v.number(),
  chain: v.object({ verified: v.boolean(), reason: v.optional(v.string()), index: v.optional(v.number()) }),
});

export const ExtErrorBody = v.object({
  error: v.string(),
  message: v.string(),
  required: v.optional(v.string()),
});

export function extErrors(...statuses: number[]): Record<number, typeof ExtErrorBody> {
  return Object.fromEntries(statuses.map((s) => [s, ExtErrorBody]));
}
