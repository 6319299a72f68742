import type { ContactFacts } from "./contact-facts.ts";
import type { NetworkView } from "./network-view.ts";
import type { NetworkStructure } from "./structure.ts";

/** The snapshot in force: its row's facts, and the analysis itself once something needed it. */
export interface SnapshotMeta {
  id: number;
  graphVersion: string;
  algoVersion: number;
  changeKey: string;
  computedAt: number;
}

/**
 * Per database, in memory: the snapshot in force (parsed once, not per request), the contact facts
 * and the views built from them (a handful of layer sets), and the debounce clock of the refresh.
 * Everything here can be rebuilt from the database; a restart starts from the stored snapshot.
 */
export interface NetworkState {
  meta: SnapshotMeta | null | undefined;
  structure: NetworkStructure | null;
  facts: { key: string; map: Map<string, ContactFacts> } | null;
  views: Map<string, NetworkView>;
  /** Answers by ETag: an ETag names everything its answer depends on, so the same one is the same answer. */
  bodies: Map<string, unknown>;
  computing: Promise<unknown> | null;
  /** Set once anything asked for analytics (here or, through a stored snapshot, before a restart). */
  wanted: boolean;
  seenKey: string | null;
  dirtySince: number | null;
  lastChangeAt: number;
}

/** The key of a view: the snapshot, the contact facts' version, the audience's layers (audienceKey). */
export function viewKey(snapshotId: number, factsKey: string, audience: string): string {
  return `${snapshotId}|${factsKey}|${audience}`;
}

/** Views kept per database (a view per layer set and contact-facts version; there are 31 layer sets). */
export const MAX_VIEWS = 40;

const states = new WeakMap<object, NetworkState>();
export function networkState(db: object): NetworkState {
  let s = states.get(db);
  if (!s) states.set(db, (s = { meta: undefined, structure: null, facts: null, views: new Map(), bodies: new Map(), computing: null, wanted: false, seenKey: null, dirtySince: null, lastChangeAt: 0 }));
  return s;
}

/** Answers kept per database (a few endpoints × variants × audiences). */
const MAX_BODIES = 64;

/** The answer for `etag`, built once: repeated reads of an unchanged analysis cost a map lookup. */
export function memoBody<T>(db: object, etag: string, build: () => T): T {
  const s = networkState(db);
  const hit = s.bodies.get(etag);
  if (hit !== undefined) return hit as T;
  const body = build();
  if (s.bodies.size >= MAX_BODIES) s.bodies.delete(s.bodies.keys().next().value!);
  s.bodies.set(etag, body);
  return body;
}
