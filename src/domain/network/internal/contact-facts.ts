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
 * A cheap key that changes whenever a contact's layer, band, status or identity may have changed
 * (a recompute sets layer_computed_at, the owner's and the peer's changes updated_at), so the
 * facts are re-read only then: ~1 ms at 10k contacts against ~20 ms for the read itself.
 */
export function contactsKey(db: Db): string {
  // (drizzle's db.get of raw SQL gives an array of values; db.all gives named rows)
  const r = db.all<{ n: number; u: number | null; l: number | null }>(sql`SELECT COUNT(*) AS n, MAX(updated_at) AS u, MAX(layer_computed_at) AS l FROM connections`)[0];
  return `${r?.n ?? 0}.${r?.u ?? 0}.${r?.l ?? 0}`;
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
