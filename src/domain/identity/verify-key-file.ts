import { agentKeys } from "../../db/schema/index.ts";
import type { With } from "../context.ts";
import { conflict } from "../internal/errors.ts";
import { findAgentRow } from "../agent/find-agent-row.ts";

/**
 * Refuses a key file that does not hold this agent's keys: one copied from another node (or a
 * backup of another agent) would make the node serve a card it cannot sign and messages nobody can
 * verify. The genesis key (the agent id) and every key the database still uses (active or retired)
 * must be in the file with the same public key; extra keys are tolerated (a rotation that crashed
 * after writing its new key). Reads only the public half: no passphrase needed.
 */
export function verifyKeyFile(ctx: With<"vault">): void {
  const vault = ctx.vault;
  const agent = findAgentRow(ctx.db);
  if (!agent) return;
  const inFile = new Map(vault.publicEntries().map((k) => [k.keyId, k.publicKeyMultibase]));
  const held = new Set(inFile.values());
  const fix = `put this node's own key file back, or restore a backup (kith restore) of this node`;
  if (!held.has(agent.genesisKey)) {
    throw conflict(`${vault.path} belongs to another agent: it does not hold this node's genesis key ${agent.genesisKey}; ${fix}`);
  }
  for (const key of ctx.db.select().from(agentKeys).all()) {
    if (key.status === "revoked") continue;
    const inFileKey = inFile.get(key.keyId);
    if (inFileKey !== key.publicKeyMultibase) {
      throw conflict(`${vault.path} does not match this node's database: it lacks ${key.role} key ${key.keyId} (${key.publicKeyMultibase}); ${fix}`);
    }
  }
}
