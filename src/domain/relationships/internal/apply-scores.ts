import { eq, sql } from "drizzle-orm";
import type { Tx } from "../../../db/client.ts";
import { connections } from "../../../db/schema/index.ts";
import { recordEvent } from "../../internal/events.ts";
import { scoreRelationship, WINDOW_DAYS, type InteractionStats } from "./score.ts";

const DAY = 86_400_000;
/** Relationships scored per transaction: bounds one step of the job (and the IN list of its query). */
export const CHUNK = 50;

type ConnectionRow = typeof connections.$inferSelect;

/** Scores `rows` from their traffic of the last year and stores what changed (layer, health, factors); returns how many changed. */
export function applyScores(tx: Tx, now: number, rows: ConnectionRow[]): number {
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
    // The extension feed's kinds (EXTENSIONS §3.2), in the transaction that makes the change.
    const [before, after] = [row.layerOverride ?? row.layer, row.layerOverride ?? result.layer];
    if (before !== after) recordEvent(tx, "connection.layer_changed", now, { subjectId: row.id, from: before, to: after });
    if (row.health !== null && row.health !== health) recordEvent(tx, "relationship.health_changed", now, { subjectId: row.id, from: row.health, to: health });
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
 * INDEXED BY: left to itself SQLite's planner took the OR on direction to the (direction,
 * received_at) index, reading every message of the year for each chunk of 50 peers — 18–24 ms a
 * chunk with 8,000 messages, growing with the node's whole traffic, synchronous on the event loop
 * every time peers are rescored; through (peer_principal, received_at) it reads only the chunk's
 * own messages (3.5–4.9 ms there), same rows (inbound-performance.md, "Tail latency").
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
    FROM messages INDEXED BY messages_peer_idx
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
