import type { With } from "../../context.ts";
import { DomainError } from "../../errors.ts";
import { activeSigningKey } from "../../agent/active-signing-key.ts";
import { cachedOwnIdentity } from "../../agent/cached-own-identity.ts";
import type { AuditSigner } from "../../internal/audit-chain.ts";

/** The agent's id and active signing key: who signs tokens and audit events. */
export function agentSigner(ctx: With<"node" | "vault">): AuditSigner {
  const own = cachedOwnIdentity(ctx.db, ctx.node);
  const key = activeSigningKey(ctx.db, ctx.vault);
  if (!own || !key) throw new DomainError("conflict", "this node has no agent yet (POST /api/svc creates it)");
  return { agentId: own.agentId, keyId: key.keyId, privateKey: key.privateKey };
}
