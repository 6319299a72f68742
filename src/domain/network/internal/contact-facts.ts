import { sql } from "drizzle-orm";
import type { Db } from "../../../db/client.ts";
import type { DunbarLayer, HealthBand } from "../../relationships/names.ts";

/** What the views need to know of one contact, as the database says now (layers filter by it). */
export interface ContactFacts {
  id: string;
  name: string;
  layer: DunbarLayer;
  band: HealthBand | null;
  /** Last interaction, or when the relationship started (docs/decisions/relationship-layers-and-health.md). */
  lastAt: number;
  trend: number | null;
  reciprocity: number | null;
  company: string | null;
}

/**
 * A key that changes whenever any contact row changes (a trigger bumps `network_counters`, migration
 * 0009), so the facts are re-read only then: one indexed read against ~20 ms for the facts at 10k.
 */
export function contactsKey(db: Db): string {
  const r = db.all<{ v: number | null }>(sql`SELECT value AS v FROM network_counters WHERE name = 'contacts'`)[0];
  return `c${r?.v ?? 0}`;
}

/** Every contact of the graph (connected or imported), by id. */
export function readContactFacts(db: Db): Map<string, ContactFacts> {
  const rows = db.all<{ id: string; name: string; layer: DunbarLayer; band: HealthBand | null; last: number; factors: string | null; company: string | null }>(sql`
    SELECT id, COALESCE(display_name, handle, agent_id, id) AS name, COALESCE(layer_override, layer) AS layer, health AS band,
      COALESCE(last_message_at, connected_at, created_at) AS last, relationship_json AS factors, company
    FROM connections WHERE status IN ('connected', 'contact')`);
  const out = new Map<string, ContactFacts>();
  for (const r of rows) {
    const f = factorsOf(r.factors);
    out.set(r.id, { id: r.id, name: r.name, layer: r.layer, band: r.band, lastAt: r.last, trend: f.trend ?? null, reciprocity: f.reciprocity ?? null, company: r.company?.trim() || null });
  }
  return out;
}

function factorsOf(json: string | null): { trend?: number; reciprocity?: number } {
  if (!json) return {};
  try {
    return JSON.parse(json) ?? {};
  } catch {
    return {};
  }
}
