import { and, asc, eq, sql } from "drizzle-orm";
import { transaction, type Db, type Tx } from "../../db/client.ts";
import { agentKeys, agentRotationLinks, agents } from "../../db/schema/index.ts";
import { generateAgentKey, newKeyId, type AgentKey, type KeyRole } from "../../security/agent-keys.ts";
import type { KeyVault } from "../../security/key-vault.ts";
import type { Ctx } from "../context.ts";
import { DomainError, notFound } from "../errors.ts";
import { findAgentRow } from "./agent.ts";
import { keyRow } from "./create-agent.ts";
import { linkSetOf, listRotationLinks, planKeySetLinks } from "./rotation-links.ts";

export interface RotationResult {
  activeKeyId: string;
  retiredKeyIds: string[];
  keySetVersion: number;
}

/**
 * Planned rotation (INK §10): a new Ed25519 key becomes `active`; the previous active key becomes
 * `retired` with `validUntil` = now, so it still verifies what it signed before, but never a new
 * live request. `keySetVersion` goes up by one and the card shows it on its next read, with a new
 * `rotationChain` link signed by the previous active key (INK §13), stored in the same transaction.
 * The private key is written to agent-key.json before the database switches to it, so a crash in
 * between leaves an unused key, never an active key without its private half.
 */
export function rotateSigningKey(
  ctx: Ctx,
  deps: { vault: KeyVault; generateKey?: (role: KeyRole, keyId: string, nowMs: number) => AgentKey },
): RotationResult {
  if (ctx.actor.kind !== "system" && ctx.actor.kind !== "owner") throw new DomainError("forbidden", "only the owner can rotate keys");
  if (!findAgentRow(ctx.db)) throw notFound("agent");
  deps.vault.all(); // fail early (wrong passphrase, insecure file) before generating anything
  const now = ctx.clock.now();
  const privateKeyOf = (keyId: string) => deps.vault.find(keyId)?.privateKey ?? null;
  // Dry run with a placeholder: refuse (chain full, key missing) before a key is generated and kept.
  planFor(ctx.db, { keyId: "~next", publicKeyMultibase: "", role: "signing", algorithm: "Ed25519", createdAt: "", privateKey: new Uint8Array(32) }, privateKeyOf);
  const key = (deps.generateKey ?? generateAgentKey)("signing", newKeyId("signing", now), now);
  deps.vault.append(key);
  const result = transaction(ctx.db, (tx) => {
    const plan = planFor(tx, key, privateKeyOf);
    const retired = tx
      .update(agentKeys)
      .set({ status: "retired", validUntil: now })
      .where(and(eq(agentKeys.role, "signing"), eq(agentKeys.status, "active")))
      .returning({ keyId: agentKeys.keyId })
      .all();
    tx.insert(agentKeys).values(keyRow(key, now)).run();
    const agent = tx
      .update(agents)
      .set({ keySetVersion: sql`${agents.keySetVersion} + 1`, updatedAt: now })
      .where(eq(agents.id, 1))
      .returning({ keySetVersion: agents.keySetVersion })
      .get()!;
    for (const link of plan.links) tx.insert(agentRotationLinks).values({ keySetVersion: link.keySetVersion, linkJson: JSON.stringify(link), createdAt: now }).run();
    return { activeKeyId: key.keyId, retiredKeyIds: retired.map((r) => r.keyId), keySetVersion: agent.keySetVersion };
  });
  ctx.log.info("signing key rotated", { ...result });
  return result;
}

function planFor(db: Db | Tx, next: AgentKey, privateKeyOf: (keyId: string) => Uint8Array | null) {
  const agent = db.select().from(agents).where(eq(agents.id, 1)).get();
  if (!agent) throw notFound("agent");
  const signing = db.select().from(agentKeys).where(eq(agentKeys.role, "signing")).orderBy(asc(agentKeys.createdAt), asc(agentKeys.keyId)).all();
  // INK §10 planned rotation: the active key retires, the new one is active.
  const after = [...linkSetOf(signing).map((k) => ({ ...k, status: k.status === "active" ? ("retired" as const) : k.status })), { keyId: next.keyId, publicKeyMultibase: next.publicKeyMultibase, status: "active" as const }];
  return planKeySetLinks({ agent, signing, existing: listRotationLinks(db), after }, privateKeyOf);
}
