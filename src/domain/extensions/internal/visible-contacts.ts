import { and, asc, eq, inArray, or, sql } from "drizzle-orm";
import type { Db } from "../../../db/client.ts";
import { connections } from "../../../db/schema/index.ts";
import { iso } from "../../internal/iso.ts";

type Row = typeof connections.$inferSelect;

/** The layer in force: the owner's override, else the computed one. */
const effectiveLayer = sql<string>`coalesce(${connections.layerOverride}, ${connections.layer})`;

/**
 * What an extension may see: contacts (connected, or known without a connection) whose layer in
 * force is one of the granted layers, decided at read time. Anything else does not exist for it:
 * a hidden contact answers exactly as a missing one (404), and no count includes it.
 */
function visible(layers: string[]) {
  return and(inArray(connections.status, ["connected", "contact"]), layers.length ? inArray(effectiveLayer, layers) : sql`0`);
}

export function listVisibleContacts(db: Db, layers: string[], limit: number, offset: number): { rows: Row[]; total: number } {
  const rows = db.select().from(connections).where(visible(layers)).orderBy(asc(connections.id)).limit(limit).offset(offset).all();
  const total = db.select({ n: sql<number>`count(*)` }).from(connections).where(visible(layers)).get()?.n ?? 0;
  return { rows, total };
}

/** One contact by id (or agent id), or null when it is missing or outside the grant. */
export function findVisibleContact(db: Db, layers: string[], contactId: string): Row | null {
  return db.select().from(connections).where(and(or(eq(connections.id, contactId), eq(connections.agentId, contactId)), visible(layers))).get() ?? null;
}

export interface ExtContactView {
  contactId: string;
  agentId: string | null;
  handle: string | null;
  displayName: string | null;
  status: string;
  layer: string;
  connectedAt: string | null;
  lastMessageAt: string | null;
}

export function extContactView(row: Row): ExtContactView {
  return {
    contactId: row.id,
    agentId: row.agentId,
    handle: row.handle,
    displayName: row.displayName,
    status: row.status,
    layer: row.layerOverride ?? row.layer,
    connectedAt: iso(row.connectedAt),
    lastMessageAt: iso(row.lastMessageAt),
  };
}

export interface ExtLayerView {
  contactId: string;
  layer: string;
  health: string | null;
}

export function extLayerView(row: Row): ExtLayerView {
  return { contactId: row.id, layer: row.layerOverride ?? row.layer, health: row.health };
}
