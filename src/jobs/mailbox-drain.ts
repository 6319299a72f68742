import type { Logger, With } from "../domain/context.ts";
import { drainMailbox } from "../domain/mailbox/drain-mailbox.ts";
import { publishCardToMailbox } from "../domain/mailbox/publish-card-to-mailbox.ts";
import { wakeableSleep } from "./wakeable-sleep.ts";

/** How long the mailbox may hold a drain open while nothing waits. */
const LONG_POLL_MS = 20_000;
const MAX_BACKOFF_MS = 60_000;

export interface MailboxDrain {
  stop(): Promise<void>;
}

/**
 * A home node with KITH_MAILBOX_URL collects its mailbox for as long as it runs
 * (docs/decisions/mailbox.md): its card is published there when it changed, then a long-poll
 * drain; failures back off (1 s doubling to 60 s). Stopping ends the wait; a round in flight
 * finishes its item (what was not acknowledged is drained again at the next start).
 */
export function startMailboxDrain(options: { ctx: () => With<"node" | "vault" | "peers" | "limiter" | "writes" | "wake" | "crypto">; log: Logger }): MailboxDrain {
  const { log } = options;
  const idle = wakeableSleep();
  let running = true;
  // Stopping aborts an open long-poll (up to 20 s) so no round touches the database after stop().
  const stopping = new AbortController();
  const loop = (async () => {
    let backoff = 1_000;
    while (running) {
      let ok = false;
      try {
        const ctx = options.ctx();
        const card = await publishCardToMailbox(ctx);
        if (!card.ok) log.warn("mailbox: card not published", { error: card.error });
        if (!running) break;
        const round = await drainMailbox(ctx, { waitMs: LONG_POLL_MS, signal: stopping.signal });
        if (!running) break;
        ok = round.ok;
        if (!round.ok) log.warn("mailbox: drain failed", { error: round.error, retryInMs: backoff });
        else if (round.received + round.duplicates + round.refused > 0) log.info("mailbox: drained", { ...round });
      } catch (e) {
        log.error("mailbox drain crashed", { cause: e });
      }
      if (ok) backoff = 1_000;
      else {
        await idle.sleep(backoff);
        backoff = Math.min(backoff * 2, MAX_BACKOFF_MS);
      }
    }
  })();
  return {
    async stop() {
      running = false;
      stopping.abort();
      idle.wake();
      await Promise.race([loop, new Promise((resolve) => setTimeout(resolve, 2_000))]);
    },
  };
}
