import { and, asc, desc, eq, inArray, isNotNull, sql } from "drizzle-orm";
import { connections, outbox } from "../../db/schema/index.ts";
import type { Ctx } from "../context.ts";
import { requireOwner } from "../internal/actors.ts";
import { iso } from "../internal/iso.ts";
/** Peers listed at most; the backlog is per peer, so this bounds the answer, not the counts. */
const MAX_PEERS = 50;

export interface PeerDeliveryState {
  peerPrincipal: string;
  agentId: string | null;
  displayName: string | null;
  connectionId: string | null;
  queued: number;
  failed: number;
  delivered: number;
  /** The most recent attempt to this peer did not succeed (it failed for good or waits for a retry). */
  failing: boolean;
  lastAttemptAt: string | null;
  lastStatus: number | null;
  lastError: string | null;
  nextAttemptAt: string | null;
  lastDeliveredAt: string | null;
}

export interface OutboxStatus {
  queued: number;
  failed: number;
  delivered: number;
  oldestQueuedAt: string | null;
  nextAttemptAt: string | null;
  /** Peers with a backlog or whose last attempt failed: most queued first, at most 50. */
  peers: PeerDeliveryState[];
}

/**
 * `GET /api/svc/outbox`: the delivery backlog and the peers that are failing, for the owner's
 * node status. Counts come from one grouped scan of the outbox; the last attempt of each listed
 * peer says whether it is failing now (a peer that failed once last week and works today is not).
 */
export function getOutboxStatus(ctx: Ctx): OutboxStatus {
  requireOwner(ctx, "sees the outbox");
  const count = (status: string) => sql<number>`coalesce(sum(case when ${outbox.status} = ${status} then 1 else 0 end), 0)`;
  const groups = ctx.db
    .select({
      peer: outbox.peerPrincipal,
      queued: count("queued"),
      failed: count("failed"),
      delivered: count("delivered"),
      oldestQueued: sql<number | null>`min(case when ${outbox.status} = 'queued' then ${outbox.createdAt} end)`,
      lastDelivered: sql<number | null>`max(${outbox.deliveredAt})`,
    })
    .from(outbox)
    .groupBy(outbox.peerPrincipal)
    .all();
  // Deliveries to one peer go in order: only the oldest queued message (the head) is ever tried next.
  const heads = new Map(
    groups.filter((g) => g.queued > 0).map((g) => {
      const head = ctx.db.select({ at: outbox.nextAttemptAt }).from(outbox).where(and(eq(outbox.peerPrincipal, g.peer), eq(outbox.status, "queued"))).orderBy(asc(outbox.id)).limit(1).get();
      return [g.peer, head?.at ?? null] as const;
    }),
  );
  const listed: PeerDeliveryState[] = [];
  for (const g of groups) {
    if (g.queued === 0 && g.failed === 0) continue;
    const last = ctx.db.select().from(outbox).where(and(eq(outbox.peerPrincipal, g.peer), isNotNull(outbox.lastAttemptAt))).orderBy(desc(outbox.lastAttemptAt), desc(outbox.id)).limit(1).get();
    const failing = !!last && (last.status === "failed" || (last.status === "queued" && last.lastError !== null));
    if (g.queued === 0 && !failing) continue;
    listed.push({
      peerPrincipal: g.peer,
      agentId: null,
      displayName: null,
      connectionId: null,
      queued: g.queued,
      failed: g.failed,
      delivered: g.delivered,
      failing,
      lastAttemptAt: iso(last?.lastAttemptAt ?? null),
      lastStatus: last?.lastStatus ?? null,
      lastError: last?.lastError ?? null,
      nextAttemptAt: iso(heads.get(g.peer) ?? null),
      lastDeliveredAt: iso(g.lastDelivered),
    });
  }
  listed.sort((a, b) => b.queued - a.queued || Number(b.failing) - Number(a.failing) || a.peerPrincipal.localeCompare(b.peerPrincipal));
  const peers = listed.slice(0, MAX_PEERS);
  const known = peers.length ? ctx.db.select().from(connections).where(inArray(connections.principal, peers.map((p) => p.peerPrincipal))).all() : [];
  for (const p of peers) {
    const c = known.find((k) => k.principal === p.peerPrincipal);
    if (c) Object.assign(p, { agentId: c.agentId, displayName: c.displayName, connectionId: c.id });
  }
  const sum = (k: "queued" | "failed" | "delivered") => groups.reduce((n, g) => n + g[k], 0);
  const queuedGroups = groups.filter((g) => g.oldestQueued !== null);
  return {
    queued: sum("queued"),
    failed: sum("failed"),
    delivered: sum("delivered"),
    oldestQueuedAt: iso(queuedGroups.length ? Math.min(...queuedGroups.map((g) => g.oldestQueued!)) : null),
    nextAttemptAt: iso(heads.size ? Math.min(...[...heads.values()].map((at) => at ?? Infinity)) : null),
    peers,
  };
}
