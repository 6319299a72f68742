import type { With } from "../../context.ts";
import { DomainError } from "../../errors.ts";
import { cachedOwnIdentity } from "../../agent/cached-own-identity.ts";
import type { AuditSigner } from "../../internal/audit-chain.ts";
import { activeSigningKey, requestCache, type RequestCache } from "./request-cache.ts";

/**
 * The agent's id and active signing key: who signs tokens and audit events. On every extension
 * request (its audit event), so the key's id is cached per request-cache generation; the key file is
 * re-read when the database names a key the vault has not loaded (a rotation in another process).
 * An extension request passes the cache its checks read (the same turn: no write can come between).
 */
export function agentSigner(ctx: With<"node" | "vault">, cache: RequestCache = requestCache(ctx.db)): AuditSigner {
  const own = cachedOwnIdentity(ctx.db, ctx.node);
  const activeKeyId = activeSigningKey(ctx.db, cache)?.keyId ?? null;
  let key = activeKeyId !== null ? ctx.vault.find(activeKeyId) : null;
  if (activeKeyId !== null && !key) {
    ctx.vault.reload();
    key = ctx.vault.find(activeKeyId);
  }
  if (!own || !key) throw new DomainError("conflict", "this node has no agent yet (POST /api/svc creates it)");
  return { db: ctx.db, agentId: own.agentId, keyId: key.keyId, privateKey: key.privateKey };
}
