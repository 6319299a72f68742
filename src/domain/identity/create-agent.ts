import * as v from "valibot";
import { transaction } from "../../db/client.ts";
import { agentKeys, agents } from "../../db/schema/index.ts";
import { generateAgentKey, newKeyId, type AgentKey, type KeyRole } from "../../security/agent-keys.ts";
import type { With } from "../context.ts";
import { conflict, DomainError, invalidInput } from "../errors.ts";
import { findAgentRow, type AgentRow } from "../agent/find-agent-row.ts";
import { handleProblem, normalizeHandle } from "./internal/handles.ts";
import { requireOwner } from "../internal/actors.ts";

export const CreateAgentInput = v.object({
  handle: v.string(),
  displayName: v.optional(v.string()),
  timezone: v.optional(v.string()),
});
export type CreateAgentInput = v.InferOutput<typeof CreateAgentInput>;

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

/**
 * The agent's handle, display name and time zone, normalized; throws invalid_input naming the
 * field. createAgent runs it first; `kith init` runs it before it creates anything on disk.
 */
export function checkAgentInput(input: CreateAgentInput): { handle: string; displayName: string; timezone: string } {
  const handle = normalizeHandle(input.handle);
  const problem = handleProblem(handle);
  if (problem) throw invalidInput(`handle: ${problem}`);
  const displayName = (input.displayName ?? handle).trim();
  if (displayName.length === 0 || displayName.length > 200) throw invalidInput("displayName: 1-200 characters");
  const timezone = input.timezone ?? "UTC";
  if (!isTimeZone(timezone)) throw invalidInput(`timezone: ${JSON.stringify(timezone)} is not an IANA time zone`);
  return { handle, displayName, timezone };
}

export function keyRow(key: AgentKey, now: number): typeof agentKeys.$inferInsert {
  return { keyId: key.keyId, role: key.role, publicKeyMultibase: key.publicKeyMultibase, status: "active", validFrom: now, createdAt: now };
}

function isTimeZone(tz: string): boolean {
  if (tz === "UTC") return true; // no ICU start-up (~6 MB) for the zero-config default
  if (tz.length === 0 || tz.length > 64) return false;
  try {
    new Intl.DateTimeFormat("en", { timeZone: tz });
    return true;
  } catch {
    return false;
  }
}
