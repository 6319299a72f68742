import type { Ctx, Logger } from "../domain/context.ts";
import { pruneMailboxes } from "../domain/mailbox/prune-mailboxes.ts";
import { pruneNonces } from "../domain/peers/prune-nonces.ts";
import { preloadNonces } from "../domain/peers/preload-nonces.ts";
import { pruneStrangerPeerCards } from "../domain/peers/prune-stranger-peer-cards.ts";
import { pruneSignInState } from "../domain/owner/prune-sign-in-state.ts";
import { pruneIdempotencyKeys } from "../domain/extensions/prune-idempotency-keys.ts";
import { pruneEvents } from "../domain/extensions/prune-events.ts";

/**
 * Rows deleted per step of the prunes that grow with traffic (nonces, events, idempotency keys,
 * mailbox items), with the
 * event loop given back between steps. At a sustained 1,000 intents/s a minute of expired nonces is
 * 60,000 rows: one DELETE held the event loop for 1.1-2.2 s on the shared test box (every request
 * waited). A step of 100 took 1.1 ms (median of 601) there; each row dirties its own page of the
 * nonce index, so larger steps cost proportionally more, not less per row.
 */
export const PRUNE_STEP = 100;
/** Replay nonces read into the in-memory index per step after start (~1 µs each), and when the steps begin. */
export const PRELOAD_STEP = 2_000;
export const PRELOAD_AFTER_MS = 1_000;

/**
 * Periodic housekeeping: expired replay nonces; sign-in state (OAuth states, codes, limiter rows)
 * past use; peer cards of agents the node has nothing to do with; extension Idempotency-Key answers past 24 h; events past their retention;
 * mailbox items past retention. And, once after start, the replay-nonce index read in steps before
 * the first signed request needs it (preloadNonces).
 */
export function startMaintenance(options: { ctx: () => Ctx; log: Logger; everyMs?: number; pruneStep?: number; preloadAfterMs?: number }): { stop(): void } {
  const step = options.pruneStep ?? PRUNE_STEP;
  let stopped = false;
  let running = false;
  /** `prune(step)` until it deletes fewer than `step`, with a turn of the event loop between steps. */
  const inSteps = async (prune: (limit: number) => number): Promise<number> => {
    let total = 0;
    while (!stopped) {
      const n = prune(step);
      total += n;
      if (n < step) break;
      await new Promise((r) => setImmediate(r));
    }
    return total;
  };
  const tick = async () => {
    if (running) return;
    running = true;
    try {
      const removed = await inSteps((limit) => pruneNonces(options.ctx(), limit));
      if (removed > 0) options.log.debug("pruned replay nonces", { removed });
      if (stopped) return;
      const signIn = pruneSignInState(options.ctx());
      if (signIn.states + signIn.codes + signIn.limits > 0) options.log.debug("pruned sign-in state", signIn);
      const peerCards = pruneStrangerPeerCards(options.ctx());
      if (peerCards > 0) options.log.debug("pruned strangers' peer cards", { removed: peerCards });
      const keys = await inSteps((limit) => pruneIdempotencyKeys(options.ctx(), limit));
      if (keys > 0) options.log.debug("pruned extension idempotency keys", { removed: keys });
      const old = await inSteps((limit) => pruneEvents(options.ctx(), limit));
      if (old > 0) options.log.debug("pruned old events", { removed: old });
      const held = await inSteps((limit) => pruneMailboxes(options.ctx(), limit));
      if (held > 0) options.log.debug("pruned expired mailbox items", { removed: held });
    } catch (e) {
      options.log.error("maintenance failed", { cause: e });
    } finally {
      running = false;
    }
  };
  const handle = setInterval(() => void tick(), options.everyMs ?? 60_000);
  handle.unref?.();
  const preload = setTimeout(async () => {
    try {
      while (!stopped && !preloadNonces(options.ctx(), PRELOAD_STEP)) await new Promise((r) => setImmediate(r));
    } catch (e) {
      // the first signed request reads the index whole instead
      options.log.warn("replay-nonce index not preloaded", { cause: e });
    }
  }, options.preloadAfterMs ?? PRELOAD_AFTER_MS);
  preload.unref?.();
  return {
    stop: () => {
      stopped = true;
      clearInterval(handle);
      clearTimeout(preload);
    },
  };
}
