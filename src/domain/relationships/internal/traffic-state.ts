/** A relationship is rescored at most this often from traffic (layers and health move over days). */
export const MIN_RESCORE_MS = 60_000;

/**
 * Per database: peers whose traffic changed and that still wait for a rescore (the throttle or the
 * step budget postponed them), and when each peer was last scored. In memory: after a restart the
 * job's start-up full recompute scores everyone again.
 */
export interface TrafficState {
  waiting: Set<string>;
  scoredAt: Map<string, number>;
}
const state = new WeakMap<object, TrafficState>();
export function stateOf(db: object): TrafficState {
  let s = state.get(db);
  if (!s) state.set(db, (s = { waiting: new Set(), scoredAt: new Map() }));
  return s;
}

/** How many principals the traffic throttle remembers (tests: it must not grow without bound). */
export function trafficStateSize(db: object): number {
  const s = stateOf(db);
  return s.scoredAt.size + s.waiting.size;
}
