import { and, inArray, sql } from "drizzle-orm";
import type { ExtensionActor, With } from "../../context.ts";
import { connections } from "../../../db/schema/index.ts";
import { readAnalytics } from "./analytics.ts";
import { grantedLayers } from "./ext-read.ts";
import { bridgesBody, clustersBody } from "./graph-bodies.ts";
import { decayingBody } from "./health-bodies.ts";

/** A contact as the chat may name it. */
export interface ChatContact {
  contactId: string;
  name: string | null;
  layer: string;
  company: string | null;
}

/**
 * Everything the agent may use to answer one installation: assembled from what its grant shows
 * and nothing else, so no message (however it is worded) can make the answer reach further.
 * Each part is present only with its permission; names only with connections:list.
 */
export interface ChatContext {
  layers: string[];
  contacts?: ChatContact[];
  decaying?: Array<{ contactId: string; name: string | null; layer: string; band: string; daysSince: number; expectedCadenceDays: number; isBridge: boolean; suggestedAction: string }>;
  clusters?: Array<{ clusterId: string; label: string; size: number; members?: string[] }>;
  bridges?: Array<{ contactId: string; name: string | null; between: Array<{ from: string; to: string }>; bridgeRisk: boolean; isArticulationPoint: boolean }>;
}

/** Contacts listed in the context at most. */
const MAX_CONTACTS = 500;

export async function chatContext(ctx: With<"network">, actor: ExtensionActor): Promise<ChatContext> {
  const has = (p: string) => actor.permissions.includes(p);
  const layers = grantedLayers(actor);
  const out: ChatContext = { layers: [...layers] };
  const names = new Map<string, string | null>();
  if (has("connections:list") && layers.size > 0) {
    const rows = ctx.db
      .select({ id: connections.id, name: sql<string | null>`coalesce(${connections.displayName}, ${connections.handle})`, layer: sql<string>`coalesce(${connections.layerOverride}, ${connections.layer})`, company: connections.company })
      .from(connections)
      .where(and(inArray(connections.status, ["connected", "contact"]), inArray(sql`coalesce(${connections.layerOverride}, ${connections.layer})`, [...layers])))
      // closest layers first: the chat needs the people who matter, not an export
      .orderBy(sql`CASE coalesce(${connections.layerOverride}, ${connections.layer}) WHEN 'inner' THEN 0 WHEN 'active' THEN 1 WHEN 'sympathy' THEN 2 WHEN 'recognition' THEN 3 ELSE 4 END`, connections.id)
      .limit(MAX_CONTACTS)
      .all();
    out.contacts = rows.map((r) => ({ contactId: r.id, name: r.name, layer: r.layer, company: r.company }));
    for (const r of rows) names.set(r.id, r.name);
  }
  const graph = has("layers:read") || has("graph:read:clusters:summary") || has("graph:read:bridges");
  if (!graph || layers.size === 0) return out;
  const a = await readAnalytics(ctx, layers);
  const nameOf = (id: string) => (has("connections:list") ? (names.get(id) ?? a.facts.get(id)?.name ?? null) : null);
  if (has("layers:read")) {
    out.decaying = decayingBody(a, ctx.clock.now(), 20, { names: false }).decaying.map((d) => ({ ...d, name: nameOf(d.contactId) }));
  }
  const labels = new Map<string, string>();
  if (has("graph:read:clusters:summary")) {
    const members = has("graph:read:clusters:members");
    out.clusters = clustersBody(a, { members, maxMembers: 50 }).clusters.map((c) => ({ clusterId: c.clusterId, label: c.label, size: c.size, ...(members ? { members: c.members!.map((m) => m.contactId) } : {}) }));
    for (const c of out.clusters) labels.set(c.clusterId, c.label);
  }
  if (has("graph:read:bridges")) {
    out.bridges = bridgesBody(a).bridges.slice(0, 50).map((b) => ({
      contactId: b.contactId,
      name: nameOf(b.contactId),
      // cluster labels only with the clusters permission; otherwise the ids alone
      between: b.clusters.map((l) => ({ from: labels.get(l.from) ?? l.from, to: labels.get(l.to) ?? l.to })),
      bridgeRisk: b.bridgeRisk,
      isArticulationPoint: b.isArticulationPoint,
    }));
  }
  return out;
}
