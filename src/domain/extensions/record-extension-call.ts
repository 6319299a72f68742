import type { ExtensionActor, With } from "../context.ts";
import { appendAuditEvent, appendPreparedAuditEvent, prepareAuditEvent, type PreparedAuditEvent } from "../internal/audit-chain.ts";
import { recordNonce } from "../peers/record-nonce.ts";
import { agentSigner } from "./internal/agent-signer.ts";
import type { RequestCache } from "./internal/request-cache.ts";
import { nonceScope, unauthorized } from "./internal/ext-refusal.ts";

/**
 * After the seven checks and the installation's rate limit: the request's nonce (persisted, so
 * a replay is refused across a restart; kept 15 min, past the window) and its audit event
 * (`delegation.used`, transport `extension_api`) commit together, group-committed with the
 * other requests of the same turn. A nonce another request recorded first is check 6's refusal.
 */
export async function recordExtensionCall(ctx: With<"node" | "vault" | "writes" | "crypto">, actor: ExtensionActor, call: { nonce: string; method: string; target: string; cache?: RequestCache }): Promise<void> {
  const signer = agentSigner(ctx, call.cache);
  const now = ctx.clock.now();
  const id = ctx.ids.next();
  const entry = { eventType: "delegation.used", data: { transport: "extension_api", method: call.method, path: call.target } };
  // Where there are spare cores the event is built now and signed on a worker with the turn's
  // other events (adapters/crypto-batch.ts; docs/decisions/extensions.md §13), then stored as built.
  let prepared: { event: PreparedAuditEvent; signature: Uint8Array } | null = null;
  if (ctx.crypto.size > 0) {
    const event = prepareAuditEvent(ctx.db, actor.installationId, signer, id, now, entry);
    prepared = { event, signature: await ctx.crypto.sign(event.message, signer.privateKey) };
  }
  const fresh = await ctx.writes.run((tx) => {
    if (!recordNonce(ctx.db, nonceScope(actor.installationId), call.nonce, now)) return false;
    if (prepared) appendPreparedAuditEvent(tx, prepared.event, signer, prepared.signature);
    else appendAuditEvent(tx, actor.installationId, signer, id, now, entry);
    return true;
  });
  if (!fresh) throw unauthorized("nonce_replayed", "this nonce was already used");
}
