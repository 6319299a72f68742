import { agentKeys } from "../../../db/schema/index.ts";
import { type AgentKey } from "../../../security/agent-keys.ts";

export function keyRow(key: AgentKey, now: number): typeof agentKeys.$inferInsert {
  return { keyId: key.keyId, role: key.role, publicKeyMultibase: key.publicKeyMultibase, status: "active", validFrom: now, createdAt: now };
}
