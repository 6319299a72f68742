import { CADENCE_DAYS, DUNBAR_LAYERS, HEALTH_BANDS, type DunbarLayer, type HealthBand } from "../../relationships/names.ts";
import type { Analytics } from "./analytics.ts";
import type { ContactFacts } from "./contact-facts.ts";
import { snapshotHeader } from "./graph-bodies.ts";

const DAY = 86_400_000;
/** Dunbar's nominal layer sizes (DESIGN "Names"). */
export const NOMINAL_SIZE: Record<DunbarLayer, number> = { inner: 5, active: 15, sympathy: 50, recognition: 150, known: 500 };
/** What each band is worth in the 0–100 network score (notes §2.5). */
const BAND_VALUE: Record<HealthBand, number> = { strong: 1, healthy: 0.8, cooling: 0.5, at_risk: 0.2, dormant: 0 };
/** How much a fading tie in each layer matters (decaying order; notes §2.5). */
const LAYER_WEIGHT: Record<DunbarLayer, number> = { inner: 5, active: 4, sympathy: 3, recognition: 2, known: 1 };

/** `GET …/health`: per granted layer, its size against the nominal one, band shares and a score; overall over granted layers only. */
export function healthBody(facts: Map<string, ContactFacts>, layers: ReadonlySet<DunbarLayer>, now: number) {
  const per = new Map<DunbarLayer, ContactFacts[]>();
  for (const f of facts.values()) if (layers.has(f.layer)) (per.get(f.layer) ?? per.set(f.layer, []).get(f.layer)!).push(f);
  const rows = DUNBAR_LAYERS.filter((l) => layers.has(l)).map((layer) => {
    const list = per.get(layer) ?? [];
    const counts = Object.fromEntries(HEALTH_BANDS.map((b) => [b, 0])) as Record<HealthBand, number>;
    for (const f of list) counts[f.band ?? "dormant"]++;
    const ratios = list.map((f) => ratioOf(f, now)).sort((x, y) => x - y);
    return {
      layer,
      size: list.length,
      nominalSize: NOMINAL_SIZE[layer],
      bands: Object.fromEntries(HEALTH_BANDS.map((b) => [b, list.length ? round(counts[b] / list.length) : 0])),
      medianRatio: ratios.length ? round(ratios[Math.floor((ratios.length - 1) / 2)]!) : null,
      score: list.length ? Math.round(100 * HEALTH_BANDS.reduce((acc, b) => acc + (counts[b] / list.length) * BAND_VALUE[b], 0)) : null,
      counts,
    };
  });
  const size = rows.reduce((acc, r) => acc + r.size, 0);
  const score = size ? Math.round(rows.reduce((acc, r) => acc + (r.score ?? 0) * r.size, 0) / size) : null;
  return { layers: rows.map(({ counts: _, ...r }) => r), overall: { size, score } };
}

/** Bands that count as slipping: cooling and at risk everywhere, dormant too in the two closest layers. */
function slipping(f: ContactFacts): boolean {
  if (f.band === "cooling" || f.band === "at_risk") return true;
  return f.band === "dormant" && (f.layer === "inner" || f.layer === "active");
}

/** `GET …/decaying`: slipping contacts the audience may see, the ones that matter most first. */
export function decayingBody(a: Analytics, now: number, limit: number, opts: { names: boolean }) {
  const { structure: s, facts, view } = a;
  const index = new Map(s.ids.map((id, v) => [id, v]));
  const rows = [];
  for (const f of facts.values()) {
    const v = index.get(f.id);
    // visibility is decided by the view's layers (facts hold everyone)
    if (v === undefined ? !view.layers.has(f.layer) : !view.visible[v]) continue;
    if (!slipping(f)) continue;
    const isBridge = v !== undefined && (view.sole.has(v) || view.articulation[v] === 1);
    const ratio = ratioOf(f, now);
    rows.push({
      contactId: f.id,
      ...(opts.names ? { name: f.name } : {}),
      layer: f.layer,
      band: f.band!,
      daysSince: daysSince(f, now),
      expectedCadenceDays: CADENCE_DAYS[f.layer],
      trend: f.trend,
      reciprocity: f.reciprocity,
      isBridge,
      priority: round(LAYER_WEIGHT[f.layer] * ratio * (isBridge ? 1.5 : 1)),
      suggestedAction: suggestedAction(f.layer, f.band!),
    });
  }
  rows.sort((x, y) => y.priority - x.priority || (x.contactId < y.contactId ? -1 : 1));
  return { ...snapshotHeader(a), total: rows.length, decaying: rows.slice(0, limit) };
}

/** The product's actions (PRODUCT-SURFACE): draft a follow-up, check in, leave a note, save for later. */
function suggestedAction(layer: DunbarLayer, band: HealthBand): "follow_up" | "check_in" | "note" | "save_for_later" {
  const close = layer === "inner" || layer === "active" || layer === "sympathy";
  if (band === "cooling") return close ? "check_in" : "note";
  return close ? "follow_up" : "save_for_later";
}

/** Whole days of silence against the layer's cadence (whole days: an answer holds for the day, ETag included). */
function ratioOf(f: ContactFacts, now: number): number {
  return daysSince(f, now) / CADENCE_DAYS[f.layer];
}

function daysSince(f: ContactFacts, now: number): number {
  return Math.floor(Math.max(0, now - f.lastAt) / DAY);
}

/** The day an answer that counts days belongs to (part of its ETag). */
export const dayOf = (now: number) => Math.floor(now / DAY);

const round = (x: number) => Math.round(x * 1000) / 1000;
