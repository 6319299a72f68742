import type { DunbarLayer, HealthBand } from "../../../db/schema/connections.ts";

/**
 * The relationship model: a Dunbar layer and a private health band from interaction history.
 * Pure (no clock, no database); the formula and why each constant is what it is are in
 * docs/decisions/relationship-layers-and-health.md — change both together.
 */

const DAY = 86_400_000;

/** Upper edges (days) of the windows interaction counts are bucketed into. */
export const WINDOW_DAYS = [7, 30, 90, 180, 365] as const;
/** How much a message in each window counts towards closeness (recency decay). */
export const WINDOW_WEIGHTS = [1, 0.8, 0.5, 0.25, 0.1] as const;
/** Closeness added by each accepted meeting in the last year (at most MEETINGS_CAP count). */
export const MEETING_WEIGHT = 5;
export const MEETINGS_CAP = 5;
/** Minimum closeness per layer, closest first; below the last one a contact is `known`. */
export const LAYER_THRESHOLDS: ReadonlyArray<[DunbarLayer, number]> = [
  ["inner", 30],
  ["active", 8],
  ["sympathy", 3],
  ["recognition", 0.5],
];
/** One-sided relationships (reciprocity below this) are capped at `sympathy`. */
export const ONE_SIDED_RECIPROCITY = 0.2;
/** Expected days between interactions, per layer. */
export const CADENCE_DAYS: Readonly<Record<DunbarLayer, number>> = { inner: 7, active: 30, sympathy: 90, recognition: 180, known: 365 };
/** Weights of the four health factors (sum 1). */
export const HEALTH_WEIGHTS = { frequency: 0.5, reciprocity: 0.2, trend: 0.2, bridge: 0.1 } as const;
/** Introductions in the last year that make a contact a full bridge. */
export const BRIDGE_INTROS = 3;
/** Minimum score per band, best first; below the last one a relationship is `dormant`. */
export const BAND_THRESHOLDS: ReadonlyArray<[HealthBand, number]> = [
  ["strong", 0.75],
  ["healthy", 0.55],
  ["cooling", 0.35],
  ["at_risk", 0.2],
];
/** A gap of this many cadences without any interaction is dormant whatever the other factors. */
export const DORMANT_CADENCES = 4;

export interface InteractionStats {
  /** Inbound message counts per window of WINDOW_DAYS (≤7 d, 7–30 d, 30–90 d, 90–180 d, 180–365 d). */
  inbound: number[];
  outbound: number[];
  /** Accepted schedule_meeting_response in the last year, either direction. */
  meetings: number;
  /** intro_request / intro_response exchanged with them in the last year, either direction. */
  introductions: number;
  /** Last message either way (unix ms), or null. */
  lastInteractionAt: number | null;
  /** Connection status: a `connected` relationship is at least `recognition`. */
  status: string;
  /** When the relationship started (connectedAt, else createdAt): the gap's origin without messages. */
  since: number;
}

export interface RelationshipFactors {
  closeness: number;
  reciprocity: number;
  frequency: number;
  recency: number;
  volume: number;
  trend: number;
  bridge: number;
  gapDays: number;
  cadenceDays: number;
}

export interface RelationshipScore {
  layer: DunbarLayer;
  health: HealthBand;
  score: number;
  factors: RelationshipFactors;
}

/** The computed layer, and the health band against the cadence of `effectiveLayer` (an override, else the computed one). */
export function scoreRelationship(stats: InteractionStats, now: number, override: DunbarLayer | null = null): RelationshipScore {
  const inTotal = sum(stats.inbound);
  const outTotal = sum(stats.outbound);
  const meetings = Math.min(stats.meetings, MEETINGS_CAP);
  const closeness = round(WINDOW_WEIGHTS.reduce((acc, w, i) => acc + w * ((stats.inbound[i] ?? 0) + (stats.outbound[i] ?? 0)), 0) + MEETING_WEIGHT * meetings);
  const reciprocity = inTotal + outTotal === 0 ? 0.5 : 1 - Math.abs(inTotal - outTotal) / (inTotal + outTotal);

  const layer = computeLayer(closeness, reciprocity, inTotal + outTotal, stats.status);
  const effective = override ?? layer;
  const cadenceDays = CADENCE_DAYS[effective];

  const gapDays = Math.max(0, (now - (stats.lastInteractionAt ?? stats.since)) / DAY);
  const ratio = gapDays / cadenceDays;
  const recency = ratio <= 1 ? 1 : clamp(1 - (ratio - 1) / (DORMANT_CADENCES - 1));
  const last90 = (stats.inbound[0] ?? 0) + (stats.outbound[0] ?? 0) + (stats.inbound[1] ?? 0) + (stats.outbound[1] ?? 0) + (stats.inbound[2] ?? 0) + (stats.outbound[2] ?? 0);
  const volume = clamp(last90 / Math.max(1, 90 / cadenceDays));
  const frequency = 0.6 * recency + 0.4 * volume;
  const trend = trendOf(stats);
  const bridge = clamp(stats.introductions / BRIDGE_INTROS);
  const score = round(HEALTH_WEIGHTS.frequency * frequency + HEALTH_WEIGHTS.reciprocity * reciprocity + HEALTH_WEIGHTS.trend * trend + HEALTH_WEIGHTS.bridge * bridge);
  const health = ratio >= DORMANT_CADENCES ? "dormant" : bandOf(score);
  return {
    layer,
    health,
    score,
    factors: { closeness, reciprocity: round(reciprocity), frequency: round(frequency), recency: round(recency), volume: round(volume), trend: round(trend), bridge: round(bridge), gapDays: Math.floor(gapDays), cadenceDays },
  };
}

/** Closeness picks the layer; one-sided traffic is capped at sympathy; a connection is at least recognition. */
function computeLayer(closeness: number, reciprocity: number, total: number, status: string): DunbarLayer {
  if (status === "blocked") return "known";
  let layer: DunbarLayer = LAYER_THRESHOLDS.find(([, min]) => closeness >= min)?.[0] ?? "known";
  if ((layer === "inner" || layer === "active") && total > 0 && reciprocity < ONE_SIDED_RECIPROCITY) layer = "sympathy";
  if (layer === "known" && status === "connected") layer = "recognition";
  return layer;
}

/** Rate of the last 30 days against the 60 days before: 0 = stopped, 0.5 = steady, 1 = new. */
function trendOf(stats: InteractionStats): number {
  const recent = (stats.inbound[0] ?? 0) + (stats.outbound[0] ?? 0) + (stats.inbound[1] ?? 0) + (stats.outbound[1] ?? 0);
  const before = (stats.inbound[2] ?? 0) + (stats.outbound[2] ?? 0);
  const a = recent / 30;
  const b = before / 60;
  if (a === 0 && b === 0) return 0.5;
  return clamp(0.5 + (a - b) / (2 * Math.max(a, b)));
}

function bandOf(score: number): HealthBand {
  return BAND_THRESHOLDS.find(([, min]) => score >= min)?.[0] ?? "dormant";
}

/** The window index (0–4) of a message `ageMs` old, or -1 when older than a year. */
export function windowOf(ageMs: number): number {
  const days = ageMs / DAY;
  return WINDOW_DAYS.findIndex((edge) => days < edge);
}

const sum = (xs: number[]) => xs.reduce((a, b) => a + b, 0);
const clamp = (x: number) => Math.min(1, Math.max(0, x));
const round = (x: number) => Math.round(x * 1000) / 1000;
