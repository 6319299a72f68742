import type { Clock } from "./domain/context.ts";

/** The wall clock: the one place the node reads the time (verbs take it from ctx.clock; tests pass their own). */
export const systemClock: Clock = { now: () => Date.now() };
