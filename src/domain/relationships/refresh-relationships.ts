import { asc, eq, gt, inArray, sql } from "drizzle-orm";
import { transaction, type Tx } from "../../db/client.ts";
import { connections } from "../../db/schema/index.ts";
import type { Ctx } from "../context.ts";
import { eventPeersAfter, readCursor, writeCursor } from "../internal/events.ts";
import { scoreRelationship, WINDOW_DAYS, type InteractionStats } from "./internal/score.ts";

const DAY = 86_400_000;
const CURSOR = "relationships";
const BATCH = 500;
/** Relationships scored per transaction: bounds one step of the job (and the IN list of its query). */
const CHUNK = 50;
/** A relationship is rescored at most this often from traffic (layers and health move over days). */
export const MIN_RESCORE_MS = 60_000;

/**
 * Per database: peers whose traffic changed and that still wait for a rescore (the throttle or the
 * step budget postponed them), and when each peer was last scored. In memory: after a restart the
 * job's start-up full recompute scores everyone again.
 */
interface TrafficState {
  waiting: Set<string>;
  scoredAt: Map<string, number>;
}
const state = new WeakMap<object, TrafficState>();
function stateOf(db: object): TrafficState {
  let s = state.get(db);
  if (!s) state.set(db, (s = { waiting: new Set(), scoredAt: new Map() }));
  return s;
}

/** How many principals the traffic throttle remembers (tests: it must not grow without bound). */
export function trafficStateSize(db: object): number {
  const s = stateOf(db);
  return s.scoredAt.size + s.waiting.size;
}

type ConnectionRow = typeof connections.$inferSelect;

/** Work left over when a step stopped early because `shouldYield` said so. */
export interface StepResult {
  read: number;
  more: boolean;
}

/**
 * Recomputes layer and health of the connections whose traffic changed since the last run (read
 * from the events log), then moves the cursor. Works in chunks and stops early when `shouldYield`
 * returns true (the job then gives the event loop back and calls again), so a burst of traffic
 * never holds the loop for long. Returns how many events were read and whether work remains.
 */
export function refreshRelationships(ctx: Ctx, shouldYield: () => boolean = () => false): StepResult {
  const { waiting, scoredAt } = stateOf(ctx.db);
  let read = 0;
  // A score time older than the throttle decides nothing: forget it, so every principal that ever
  // sent something (strangers included) does not stay in memory for the life of the process.
  const start = ctx.clock.now();
  for (const [p, at] of scoredAt) if (start - at >= MIN_RESCORE_MS) scoredAt.delete(p);
  for (;;) {
    const now = ctx.clock.now();
    const due = [...waiting].filter((p) => now - (scoredAt.get(p) ?? -Infinity) >= MIN_RESCORE_MS);
    for (let i = 0; i < due.length; i += CHUNK) {
      const chunk = due.slice(i, i + CHUNK);
      transaction(ctx.db, (tx) => apply(tx, now, tx.select().from(connections).where(inArray(connections.principal, chunk)).all()));
      for (const p of chunk) {
        waiting.delete(p);
        scoredAt.set(p, now);
      }
      if (shouldYield()) return { read, more: true };
    }
    const after = readCursor(ctx.db, CURSOR);
    const batch = eventPeersAfter(ctx.db, after, BATCH);
    if (batch.length === 0) return { read, more: false };
    for (const e of batch) if (e.peerPrincipal) waiting.add(e.peerPrincipal);
    transaction(ctx.db, (tx) => writeCursor(tx, CURSOR, batch.at(-1)!.seq, now));
    read += batch.length;
    if (shouldYield()) return { read, more: true };
  }
}

/**
 * Every relationship, a page at a time in id order: health decays with time even without traffic
 * (run periodically). Returns the id to continue after, or null when done.
 */
export function recomputeRelationshipsPage(ctx: Ctx, afterId: string | null, pageSize = CHUNK): { changed: number; next: string | null } {
  const now = ctx.clock.now();
  const { scoredAt } = stateOf(ctx.db);
  return transaction(ctx.db, (tx) => {
    const rows = tx
      .select()
      .from(connections)
      .where(afterId === null ? undefined : gt(connections.id, afterId))
      .orderBy(asc(connections.id))
      .limit(pageSize)
      .all();
    for (const r of rows) if (r.principal) scoredAt.set(r.principal, now);
    return { changed: apply(tx, now, rows), next: rows.length === pageSize ? rows.at(-1)!.id : null };
  });
}

/** Every relationship at once (tests, and callers that do not need to yield). */
export function recomputeAllRelationships(ctx: Ctx): number {
  let changed = 0;
  let after: string | null = null;
  do {
    const page = recomputeRelationshipsPage(ctx, after);
    changed += page.changed;
    after = page.next;
  } while (after !== null);
  return changed;
}

/** One relationship (after the owner changes its layer override). */
export function recomputeRelationship(tx: Tx, now: number, connectionId: string): void {
  const row = tx.select().from(connections).where(eq(connections.id, connectionId)).get();
  if (row) apply(tx, now, [row]);
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
  const scope = sql`peer_principal IN (${sql.join(principals.map((p) => sql`${p}`), sql`, `)})`;
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
