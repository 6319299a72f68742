import { and, eq } from "drizzle-orm";
import { agentKeys } from "../../db/schema/index.ts";
import type { RotationLinkKey } from "../../ink/index.ts";
import { generateAgentKey, newKeyId, type AgentKey, type KeyRole } from "../../security/agent-keys.ts";
import type { With } from "../context.ts";
import { notFound } from "../internal/errors.ts";
import { findAgentRow } from "../agent/find-agent-row.ts";
import { changeKeys } from "./internal/key-change.ts";
import { keyRow } from "./internal/key-row.ts";
import { planKeySetChange, publishKeySetChange } from "./internal/rotation-links.ts";
import { requireOwner } from "../internal/actors.ts";

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
 * The private key is written to agent-key.json before the database switches to it, all under one
 * lock (internal/key-change.ts), so concurrent key changes cannot lose a key and a crash in between
 * leaves an unused key, never an active key without its private half.
 */
export function rotateSigningKey(
  ctx: With<"vault">,
  options: { generateKey?: (role: KeyRole, keyId: string, nowMs: number) => AgentKey } = {},
): RotationResult {
  requireOwner(ctx, "can rotate keys");
  const result = changeKeys(ctx, (tx, now) => {
    if (!findAgentRow(tx)) throw notFound("agent");
    const privateKeyOf = (keyId: string) => ctx.vault.find(keyId)?.privateKey ?? null;
    // Dry run with a placeholder: refuse (chain full, key missing) before a key is generated and kept.
    planKeySetChange(tx, rotated({ keyId: "~next", publicKeyMultibase: "" }), privateKeyOf);
    const key = (options.generateKey ?? generateAgentKey)("signing", newKeyId("signing", now), now);
    ctx.vault.append(key);
    const plan = planKeySetChange(tx, rotated(key), privateKeyOf);
    const retired = tx
      .update(agentKeys)
      .set({ status: "retired", validUntil: now })
      .where(and(eq(agentKeys.role, "signing"), eq(agentKeys.status, "active")))
      .returning({ keyId: agentKeys.keyId })
      .all();
    tx.insert(agentKeys).values(keyRow(key, now)).run();
    const keySetVersion = publishKeySetChange(tx, plan, now);
    return { activeKeyId: key.keyId, retiredKeyIds: retired.map((r) => r.keyId), keySetVersion };
  });
  ctx.log.info("signing key rotated", { ...result });
  return result;
}

/** INK §10 planned rotation: the active key retires, `next` is active. */
function rotated(next: { keyId: string; publicKeyMultibase: string }) {
  return (signing: RotationLinkKey[]): RotationLinkKey[] => [
    ...signing.map((k) => ({ ...k, status: k.status === "active" ? ("retired" as const) : k.status })),
    { keyId: next.keyId, publicKeyMultibase: next.publicKeyMultibase, status: "active" as const },
  ];
}
