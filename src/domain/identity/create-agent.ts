import { transaction } from "../../db/client.ts";
import { agentKeys, agents } from "../../db/schema/index.ts";
import { generateAgentKey, newKeyId, type AgentKey, type KeyRole } from "../../security/agent-keys.ts";
import type { With } from "../context.ts";
import { conflict } from "../internal/errors.ts";
import { findAgentRow, type AgentRow } from "../agent/find-agent-row.ts";
import { requireOwner } from "../internal/actors.ts";
import { checkAgentInput, type CreateAgentInput } from "./check-agent-input.ts";
import { keyRow } from "./internal/key-row.ts";

/**
 * Creates the node's one agent: an Ed25519 signing key (whose public key is the genesis key the
 * agent id derives from, INK §2.1) and an X25519 encryption key, written to agent-key.json, and
 * the public records in SQLite. Refuses when an identity already exists, in either place.
 */
export function createAgent(
  ctx: With<"vault">,
  input: CreateAgentInput,
  options: { generateKey?: (role: KeyRole, keyId: string, nowMs: number) => AgentKey } = {},
): AgentRow {
  requireOwner(ctx, "can create the agent");
  const { handle, displayName, timezone } = checkAgentInput(input);

  if (findAgentRow(ctx.db)) throw conflict("this node already has an agent");
  if (ctx.vault.exists()) throw conflict(`${ctx.vault.path} already exists; refusing to overwrite an agent identity`);

  const now = ctx.clock.now();
  const generate = options.generateKey ?? generateAgentKey;
  const signing = generate("signing", newKeyId("signing", now), now);
  const encryption = generate("encryption", newKeyId("encryption", now), now);
  ctx.vault.create([signing, encryption]);
  try {
    const row = transaction(ctx.db, (tx) => {
      tx.insert(agents).values({ id: 1, genesisKey: signing.publicKeyMultibase, handle, displayName, timezone, keySetVersion: 1, createdAt: now, updatedAt: now }).run();
      for (const key of [signing, encryption]) tx.insert(agentKeys).values(keyRow(key, now)).run();
      return tx.select().from(agents).get()!;
    });
    ctx.log.info("agent created", { handle, signingKeyId: signing.keyId, encryptionKeyId: encryption.keyId });
    return row;
  } catch (e) {
    ctx.vault.discard(); // the database refused: do not leave an orphan identity behind
    throw e;
  }
}

