import type { Ctx, Logger } from "../domain/context.ts";
import { pruneMailboxes } from "../domain/mailbox/prune-mailboxes.ts";
import { pruneNonces } from "../domain/peers/prune-nonces.ts";
import { pruneStrangerPeerCards } from "../domain/peers/prune-stranger-peer-cards.ts";
import { pruneSignInState } from "../domain/owner/prune-sign-in-state.ts";
import { pruneIdempotencyKeys } from "../domain/extensions/prune-idempotency-keys.ts";
import { pruneEvents } from "../domain/extensions/prune-events.ts";

/**
 * Periodic housekeeping: expired replay nonces; sign-in state (OAuth states, codes, limiter rows)
 * past use; peer cards of agents the node has nothing to do with; extension Idempotency-Key answers past 24 h; events past their retention;
 * mailbox items past retention.
 */
export function startMaintenance(options: { ctx: () => Ctx; log: Logger; everyMs?: number }): { stop(): void } {
  const tick = () => {
    try {
      const removed = pruneNonces(options.ctx());
      if (removed > 0) options.log.debug("pruned replay nonces", { removed });
      const signIn = pruneSignInState(options.ctx());
      if (signIn.states + signIn.codes + signIn.limits > 0) options.log.debug("pruned sign-in state", signIn);
      const peerCards = pruneStrangerPeerCards(options.ctx());
      if (peerCards > 0) options.log.debug("pruned strangers' peer cards", { removed: peerCards });
      const keys = pruneIdempotencyKeys(options.ctx());
      if (keys > 0) options.log.debug("pruned extension idempotency keys", { removed: keys });
      const old = pruneEvents(options.ctx());
      if (old > 0) options.log.debug("pruned old events", { removed: old });
      const held = pruneMailboxes(options.ctx());
      if (held > 0) options.log.debug("pruned expired mailbox items", { removed: held });
    } catch (e) {
      options.log.error("maintenance failed", { cause: e });
    }
  };
  const handle = setInterval(tick, options.everyMs ?? 60_000);
  handle.unref?.();
  return { stop: () => clearInterval(handle) };
}
