import { eq, inArray, sql } from "drizzle-orm";
import { transaction, type Tx } from "../../db/client.ts";
import { connections } from "../../db/schema/index.ts";
import type { Ctx } from "../context.ts";
import { eventsAfter, readCursor, writeCursor } from "../events/cursor.ts";
import { scoreRelationship, WINDOW_DAYS, type InteractionStats } from "./score.ts";

const DAY = 86_400_000;
const CURSOR = "relationships";
const BATCH = 500;
/** A relationship is rescored at most this often from traffic (layers and health move over days). */
export const MIN_RESCORE_MS = 60_000;

/** Peers whose rescoring the throttle postponed, per database; picked up by a later pass. */
const deferred = new WeakMap<object, Set<string>>();

type ConnectionRow = typeof connections.$inferSelect;

/**
 * Recomputes layer and health of the connections whose traffic changed since the last run (read
 * from the events log), then moves the cursor. Returns how many events were read.
 */
export function refreshRelationships(ctx: Ctx): number {
  let read = 0;
  let waiting = deferred.get(ctx.db);
  if (!waiting) deferred.set(ctx.db, (waiting = new Set()));
  for (;;) {
    const after = readCursor(ctx.db, CURSOR);
    const batch = eventsAfter(ctx.db, after, BATCH);
    const principals = new Set([...waiting, ...batch.map((e) => e.peerPrincipal).filter((p): p is string => p !== null)]);
    if (batch.length === 0 && principals.size === 0) return read;
    const now = ctx.clock.now();
    transaction(ctx.db, (tx) => {
      if (principals.size > 0) recompute(tx, now, [...principals], waiting!);
      if (batch.length > 0) writeCursor(tx, CURSOR, batch.at(-1)!.seq, now);
    });
    read += batch.length;
    if (batch.length === 0) return read;
  }
}

/** Every relationship at once: health decays with time even without traffic (run periodically). */
export function recomputeAllRelationships(ctx: Ctx): number {
  return transaction(ctx.db, (tx) => recompute(tx, ctx.clock.now(), "all"));
}

/** One relationship (after the owner changes its layer override). */
export function recomputeRelationship(tx: Tx, now: number, connectionId: string): void {
  const row = tx.select().from(connections).where(eq(connections.id, connectionId)).get();
  if (row) apply(tx, now, [row]);
}

function recompute(tx: Tx, now: number, principals: string[] | "all", waiting?: Set<string>): number {
  let rows = principals === "all" ? tx.select().from(connections).all() : tx.select().from(connections).where(inArray(connections.principal, principals)).all();
  if (waiting) {
    // Throttle: a peer scored less than a minute ago waits for a later pass instead.
    const due = rows.filter((r) => r.layerComputedAt === null || now - r.layerComputedAt >= MIN_RESCORE_MS);
    for (const r of rows) if (r.principal) (due.includes(r) ? waiting.delete(r.principal) : waiting.add(r.principal));
    for (const p of principals === "all" ? [] : principals) if (!rows.some((r) => r.principal === p)) waiting.delete(p);
    rows = due;
  }
  return apply(tx, now, rows);
}

function apply(tx: Tx, now: number, rows: ConnectionRow[]): number {
  const stats = interactionStats(tx, now, rows.map((r) => r.principal).filter((p): p is string => p !== null));
  let changed = 0;
  for (const row of rows) {
    const s = (row.principal && stats.get(row.principal)) || emptyStats();
    const input: InteractionStats = { ...s, lastInteractionAt: row.lastMessageAt, status: row.status, since: row.connectedAt ?? row.createdAt };
    const result = scoreRelationship(input, now, row.layerOverride);
    // Nothing ever exchanged with someone we are not connected to: nothing to keep healthy.
    const health = row.lastMessageAt === null && row.status !== "connected" ? "dormant" : result.health;
    const factors = JSON.stringify(result.factors);
    if (row.layer === result.layer && row.health === health && row.healthScore === result.score && row.relationshipJson === factors) continue;
    // updatedAt stays: it orders the connection list by what the owner or the peer changed.
    tx.update(connections).set({ layer: result.layer, health, healthScore: result.score, relationshipJson: factors, layerComputedAt: now }).where(eq(connections.id, row.id)).run();
    changed++;
  }
  return changed;
}

type Stats = Pick<InteractionStats, "inbound" | "outbound" | "meetings" | "introductions">;

function emptyStats(): Stats {
  return { inbound: [0, 0, 0, 0, 0], outbound: [0, 0, 0, 0, 0], meetings: 0, introductions: 0 };
}

/**
 * Message counts of the last year per peer, direction and window, in one grouped query. Counted:
 * inbound messages that were not retracted, outbound ones that were queued or delivered.
 */
function interactionStats(tx: Tx, now: number, principals: string[]): Map<string, Stats> {
  const out = new Map<string, Stats>();
  if (principals.length === 0) return out;
  const edges = WINDOW_DAYS.map((d) => now - d * DAY);
  const bucket = sql.raw(`CASE ${edges.slice(0, -1).map((e, i) => `WHEN received_at >= ${e} THEN ${i}`).join(" ")} ELSE ${edges.length - 1} END`);
  const scope = principals.length > 400 ? sql`1 = 1` : sql`peer_principal IN (${sql.join(principals.map((p) => sql`${p}`), sql`, `)})`;
  const rows = tx.all<{ p: string; d: "in" | "out"; b: number; n: number; meetings: number; intros: number }>(sql`
    SELECT peer_principal AS p, direction AS d, ${bucket} AS b, COUNT(*) AS n,
      SUM(CASE WHEN intent = 'schedule_meeting_response' AND json_extract(payload_json, '$.status') = 'accepted' THEN 1 ELSE 0 END) AS meetings,
      SUM(CASE WHEN intent IN ('intro_request', 'intro_response') THEN 1 ELSE 0 END) AS intros
    FROM messages
    WHERE received_at >= ${edges.at(-1)!} AND intent <> 'retract'
      AND ((direction = 'in' AND status <> 'retracted') OR (direction = 'out' AND status IN ('queued', 'delivered')))
      AND ${scope}
    GROUP BY p, d, b`);
  for (const r of rows) {
    const s = out.get(r.p) ?? emptyStats();
    (r.d === "in" ? s.inbound : s.outbound)[r.b] = r.n;
    s.meetings += r.meetings;
    s.introductions += r.intros;
    out.set(r.p, s);
  }
  return out;
}
