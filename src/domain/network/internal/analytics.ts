import { sha256 } from "@noble/hashes/sha2.js";
import { bytesToHex, utf8ToBytes } from "@noble/hashes/utils.js";
import type { With } from "../../context.ts";
import { DomainError } from "../../errors.ts";
import { DUNBAR_LAYERS, type DunbarLayer } from "../../relationships/names.ts";
import { graphChangeKey } from "./change-key.ts";
import { contactsKey, readContactFacts, type ContactFacts } from "./contact-facts.ts";
import { buildView, type NetworkView } from "./network-view.ts";
import { refreshSnapshot } from "./refresh.ts";
import { readSnapshotMeta, readSnapshotStructure } from "./snapshot-store.ts";
import { MAX_VIEWS, networkState, viewKey, type SnapshotMeta } from "./state.ts";
import { ALGO_VERSION, type NetworkStructure } from "./structure.ts";

/** What every network read serves from: the snapshot, today's contact facts, the view for the audience. */
export interface Analytics {
  structure: NetworkStructure;
  facts: Map<string, ContactFacts>;
  view: NetworkView;
  meta: SnapshotMeta;
  /** True while the database has moved on since the snapshot (a recompute is due or running). */
  stale: boolean;
  /** Changes whenever anything this audience can see may have changed; reveals nothing itself. */
  etag: string;
}

/**
 * The analysis seen through `layers`, served from memory (stale-while-recomputing: a snapshot
 * behind the database is served with `stale: true` while the job recomputes). Only the very first
 * read on a node, before any snapshot exists, waits for a computation (off the event loop).
 */
export async function readAnalytics(ctx: With<"network">, layers: ReadonlySet<DunbarLayer>): Promise<Analytics> {
  const s = networkState(ctx.db);
  if (s.meta === undefined) s.meta = readSnapshotMeta(ctx.db);
  s.wanted = true;
  if (!s.meta || s.meta.algoVersion !== ALGO_VERSION) {
    try {
      await refreshSnapshot(ctx, { force: true });
    } catch (cause) {
      ctx.log.error("network analysis failed", { cause });
      throw new DomainError("unavailable", "the network analytics could not be computed; retry later", { retryAfterSeconds: 30, cause });
    }
  }
  const meta = s.meta;
  if (!meta) throw new DomainError("unavailable", "the network analytics are not computed yet", { retryAfterSeconds: 5 });
  s.structure ??= readSnapshotStructure(ctx.db, meta.id);
  if (!s.structure) throw new DomainError("unavailable", "the network snapshot cannot be read; it is being recomputed", { retryAfterSeconds: 5 });
  const { key: fkey, map: facts } = readFacts(ctx);
  const grant = DUNBAR_LAYERS.filter((l) => layers.has(l)).join(",");
  const key = viewKey(meta.id, fkey, grant);
  let view = s.views.get(key);
  if (!view) {
    view = buildView(s.structure, facts, layers);
    if (s.views.size >= MAX_VIEWS) s.views.delete(s.views.keys().next().value!);
    s.views.set(key, view);
  }
  const stale = s.computing !== null || graphChangeKey(ctx.db, fkey) !== meta.changeKey || ctx.clock.now() - meta.computedAt >= ctx.network.refreshMs;
  const etag = `"${bytesToHex(sha256(utf8ToBytes(`${meta.graphVersion}|${meta.id}|${meta.computedAt}|${fkey}|${grant}|${stale}`))).slice(0, 24)}"`;
  return { structure: s.structure, facts, view, meta, stale, etag };
}

/** Today's contact facts (layers, bands), re-read only when a contact changed; health needs no graph. */
export function readFacts(ctx: With<"network">): { key: string; map: Map<string, ContactFacts> } {
  const s = networkState(ctx.db);
  const key = contactsKey(ctx.db);
  if (s.facts?.key !== key) s.facts = { key, map: readContactFacts(ctx.db) };
  return s.facts;
}
