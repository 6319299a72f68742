import type { ExtensionActor, With } from "../context.ts";
import { appendAuditEvent } from "../internal/audit-chain.ts";
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
export async function recordExtensionCall(ctx: With<"node" | "vault" | "writes">, actor: ExtensionActor, call: { nonce: string; method: string; target: string; cache?: RequestCache }): Promise<void> {
  const signer = agentSigner(ctx, call.cache);
  const now = ctx.clock.now();
  const id = ctx.ids.next();
  const fresh = await ctx.writes.run((tx) => {
    if (!recordNonce(ctx.db, nonceScope(actor.installationId), call.nonce, now)) return false;
    appendAuditEvent(tx, actor.installationId, signer, id, now, { eventType: "delegation.used", data: { transport: "extension_api", method: call.method, path: call.target } });
    return true;
  });
  if (!fresh) throw unauthorized("nonce_replayed", "this nonce was already used");
}
