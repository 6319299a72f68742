import { extensionStatements } from "../../../db/extension-statements.ts";
import type { With } from "../../context.ts";
import { DomainError } from "../../errors.ts";
import { cachedOwnIdentity } from "../../agent/cached-own-identity.ts";
import type { AuditSigner } from "../../internal/audit-chain.ts";

/**
 * The agent's id and active signing key: who signs tokens and audit events. On every extension
 * request (its audit event), so the key is looked up with a prepared statement; the key file is
 * re-read when the database names a key the vault has not loaded (a rotation in another process).
 */
export function agentSigner(ctx: With<"node" | "vault">): AuditSigner {
  const own = cachedOwnIdentity(ctx.db, ctx.node);
  const active = extensionStatements(ctx.db).activeSigningKeys.get();
  let key = active ? ctx.vault.find(active.keyId) : null;
  if (active && !key) {
    ctx.vault.reload();
    key = ctx.vault.find(active.keyId);
  }
  if (!own || !key) throw new DomainError("conflict", "this node has no agent yet (POST /api/svc creates it)");
  return { db: ctx.db, agentId: own.agentId, keyId: key.keyId, privateKey: key.privateKey };
}
