import { createContext } from "preact";
import { useCallback, useContext, useEffect, useRef, useState } from "preact/hooks";
import { ApiError } from "./api.ts";

/**
 * "Live enough" (issue 17): one clock for the whole console that ticks every few seconds while the
 * page is visible (and at once when it comes back), and every open list re-reads on each tick.
 * Polling a local node costs a few small requests; a stream would add a server surface.
 */
export const POLL_MS = 4000;
export const Tick = createContext(0);

const nudges = new Set<() => void>();
/** Read everything again now: after the owner changed something, counters and lists follow at once. */
export function refreshNow(): void {
  for (const n of nudges) n();
}

export function useTicker(): number {
  const [tick, setTick] = useState(0);
  useEffect(() => {
    const bump = () => document.visibilityState === "visible" && setTick((t) => t + 1);
    nudges.add(bump);
    const timer = setInterval(bump, POLL_MS);
    document.addEventListener("visibilitychange", bump);
    addEventListener("focus", bump);
    return () => {
      nudges.delete(bump);
      clearInterval(timer);
      document.removeEventListener("visibilitychange", bump);
      removeEventListener("focus", bump);
    };
  }, []);
  return tick;
}

export interface Loaded<T> {
  data: T | undefined;
  error: ApiError | null;
  loading: boolean;
  /** Read again now (after a change the owner made). */
  reload(): void;
}

/**
 * Loads `fn` when `key` changes and again on every tick (quietly: the old data stays on screen
 * until the new arrives, so nothing flickers). `live: false` loads once per key.
 */
export function useLoad<T>(fn: () => Promise<T>, key: string, options: { live?: boolean } = {}): Loaded<T> {
  const tick = useContext(Tick);
  const [state, setState] = useState<{ key: string; data?: T; error: ApiError | null }>({ key, error: null });
  const [nonce, setNonce] = useState(0);
  const latest = useRef(fn);
  latest.current = fn;
  const live = options.live ?? true;
  useEffect(() => {
    let stale = false;
    latest.current().then(
      (data) => !stale && setState({ key, data, error: null }),
      (e: unknown) => !stale && setState((s) => ({ key, data: s.key === key ? s.data : undefined, error: e instanceof ApiError ? e : new ApiError(0, "network", "the node could not be reached") })),
    );
    return () => {
      stale = true;
    };
  }, [key, nonce, live ? tick : 0]);
  const reload = useCallback(() => setNonce((n) => n + 1), []);
  const current = state.key === key;
  return { data: current ? state.data : undefined, error: current ? state.error : null, loading: !current || (state.data === undefined && state.error === null), reload };
}
