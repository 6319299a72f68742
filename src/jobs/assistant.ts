import type { Ctx, Logger } from "../domain/context.ts";
import { recomputeAllRelationships, refreshRelationships } from "../domain/relationships/recompute.ts";
import { runRules } from "../domain/rules/run-rules.ts";

export interface AssistantJob {
  /** Look at the events log now (after a commit that may matter). */
  wake(): void;
  /** Stop (a pass is synchronous, so none is ever half done). */
  stop(): Promise<void>;
}

const POLL_MS = 1_000;
const FULL_RECOMPUTE_MS = 3_600_000;

/**
 * One pass of the after-commit work, in order: automation rules on newly received messages, then
 * layer and health of the relationships whose traffic changed. Tests call this directly.
 */
export function runAssistantOnce(ctx: Ctx, deps: { wakeOutbox(): void }): { messages: number; events: number } {
  const messages = runRules(ctx, deps);
  const events = refreshRelationships(ctx);
  return { messages, events };
}

/**
 * Runs `runAssistantOnce` every second (reading the events log is one indexed query when idle) and
 * recomputes every relationship hourly and at start, since health decays with time alone.
 */
export function startAssistantJob(options: { ctx: () => Ctx; deps: { wakeOutbox(): void }; log: Logger; pollMs?: number; fullRecomputeMs?: number }): AssistantJob {
  let stopped = false;
  let lastFull = 0;
  // Synchronous: bun:sqlite is, so a pass never interleaves with another one.
  const pass = () => {
    if (stopped) return;
    try {
      const ctx = options.ctx();
      runAssistantOnce(ctx, options.deps);
      if (ctx.clock.now() - lastFull >= (options.fullRecomputeMs ?? FULL_RECOMPUTE_MS)) {
        const changed = recomputeAllRelationships(ctx);
        lastFull = ctx.clock.now();
        if (changed > 0) options.log.debug("relationships recomputed", { changed });
      }
    } catch (e) {
      options.log.error("assistant job failed", { cause: e });
    }
  };
  const timer = setInterval(pass, options.pollMs ?? POLL_MS);
  timer.unref?.();
  setTimeout(pass, 0);
  return {
    wake: () => setTimeout(pass, 0),
    async stop() {
      stopped = true;
      clearInterval(timer);
    },
  };
}
