import type { Logger, With } from "../domain/context.ts";
import { recomputeRelationshipsPage } from "../domain/relationships/recompute-relationships-page.ts";
import { refreshRelationships } from "../domain/relationships/refresh-relationships.ts";
import { runRules } from "../domain/rules/run-rules.ts";

export interface AssistantJob {
  /** Look at the events log now (after a commit that may matter). */
  wake(): void;
  /** Stop; resolves once the step in progress (if any) has ended. */
  stop(): Promise<void>;
}

const POLL_MS = 1_000;
const FULL_RECOMPUTE_MS = 3_600_000;
/**
 * Longest the job holds the event loop before giving it back to requests. bun:sqlite is
 * synchronous, so a burst of 1,000 messages handled in one go would stall every request behind it
 * for tens of milliseconds.
 */
const STEP_BUDGET_MS = 2;

/**
 * One pass of the after-commit work, in order: automation rules on newly received messages, then
 * layer and health of the relationships whose traffic changed. Tests call this directly; it runs
 * to the end without yielding.
 */
export function runAssistantOnce(ctx: With<"wake">): { messages: number; events: number } {
  const messages = runRules(ctx).seen;
  const events = refreshRelationships(ctx).read;
  return { messages, events };
}

/**
 * Runs the after-commit work every second (reading the events log is one indexed query when idle)
 * and recomputes every relationship hourly and at start, since health decays with time alone.
 * Work is done in steps of about STEP_BUDGET_MS with the event loop given back in between; steps
 * never overlap, so rules see messages one at a time and in order.
 */
export function startAssistantJob(options: {
  ctx: () => With<"wake">;
  log: Logger;
  pollMs?: number;
  fullRecomputeMs?: number;
  /** Event-loop time one step may take (default STEP_BUDGET_MS; 0 yields after every chunk). */
  stepBudgetMs?: number;
}): AssistantJob {
  let stopped = false;
  let lastFull = -Infinity;
  let running: Promise<void> | null = null;
  let again = false;

  const step = async (work: (shouldYield: () => boolean) => boolean): Promise<void> => {
    for (;;) {
      if (stopped) return;
      const until = performance.now() + (options.stepBudgetMs ?? STEP_BUDGET_MS);
      if (!work(() => performance.now() >= until)) return;
      await new Promise((r) => setImmediate(r));
    }
  };
  const pass = async () => {
    do {
      again = false;
      // Two loops, not one: a step that resumes the relationships backlog must not run the rules
      // again first (each of those runs read the rules and, with events still arriving, committed
      // the rules cursor: one fsync on the event loop per 2 ms step under load, issue 18).
      await step((shouldYield) => runRules(options.ctx(), shouldYield).more);
      await step((shouldYield) => refreshRelationships(options.ctx(), shouldYield).more);
      const fullEvery = options.fullRecomputeMs ?? FULL_RECOMPUTE_MS;
      const startedAt = options.ctx().clock.now();
      if (!stopped && startedAt - lastFull >= fullEvery) {
        let after: string | null = null;
        let changed = 0;
        await step((shouldYield) => {
          const ctx = options.ctx();
          do {
            const page = recomputeRelationshipsPage(ctx, after);
            changed += page.changed;
            after = page.next;
          } while (after !== null && !shouldYield());
          return after !== null;
        });
        lastFull = startedAt;
        if (changed > 0) options.log.debug("relationships recomputed", { changed });
      }
    } while (again && !stopped);
  };
  const trigger = () => {
    if (stopped) return;
    if (running) {
      again = true;
      return;
    }
    running = pass()
      .catch((e) => options.log.error("assistant job failed", { cause: e }))
      .finally(() => (running = null));
  };
  const timer = setInterval(trigger, options.pollMs ?? POLL_MS);
  timer.unref?.();
  setTimeout(trigger, 0);
  return {
    wake: () => setTimeout(trigger, 0),
    async stop() {
      stopped = true;
      clearInterval(timer);
      await running;
    },
  };
}
