import { sha256 } from "@noble/hashes/sha2.js";
import { bytesToHex, utf8ToBytes } from "@noble/hashes/utils.js";

/** A cluster of the previous run: its id and its members' contact ids. */
export interface PreviousCluster {
  id: string;
  members: string[];
}

/** A cluster keeps its id when its Jaccard overlap with a previous one is at least this (notes §2.5). */
export const KEEP_ID_JACCARD = 0.5;

/**
 * Ids for this run's clusters (each a list of contact ids): each new cluster, largest first, takes
 * the id of the unclaimed previous cluster it overlaps most, when that overlap has Jaccard ≥ 0.5;
 * otherwise a new id. New ids are a hash of the members, not a counter, so the ids an
 * installation sees never hint, by a gap, at clusters it may not see.
 */
export function stableClusterIds(clusters: string[][], previous: PreviousCluster[]): string[] {
  const owner = new Map<string, number>();
  previous.forEach((p, i) => p.members.forEach((m) => owner.set(m, i)));
  const order = clusters.map((_, i) => i).sort((x, y) => clusters[y]!.length - clusters[x]!.length || x - y);
  const claimed = new Set<number>();
  const ids: string[] = new Array(clusters.length);
  for (const c of order) {
    const overlap = new Map<number, number>();
    for (const m of clusters[c]!) {
      const p = owner.get(m);
      if (p !== undefined) overlap.set(p, (overlap.get(p) ?? 0) + 1);
    }
    let best = -1;
    let bestJ = 0;
    for (const [p, shared] of overlap) {
      if (claimed.has(p)) continue;
      const j = shared / (clusters[c]!.length + previous[p]!.members.length - shared);
      if (j > bestJ || (j === bestJ && best !== -1 && p < best)) [best, bestJ] = [p, j];
    }
    if (best !== -1 && bestJ >= KEEP_ID_JACCARD) {
      claimed.add(best);
      ids[c] = previous[best]!.id;
    } else ids[c] = freshId(clusters[c]!, ids, previous);
  }
  return ids;
}

function freshId(members: string[], taken: string[], previous: PreviousCluster[]): string {
  const used = new Set([...taken, ...previous.map((p) => p.id)]);
  for (let salt = 0; ; salt++) {
    const id = `cl_${bytesToHex(sha256(utf8ToBytes(`${salt}\n${[...members].sort().join("\n")}`))).slice(0, 16)}`;
    if (!used.has(id)) return id;
  }
}
