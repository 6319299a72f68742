import { eq } from "drizzle-orm";
import type { Db, Tx } from "../../../db/client.ts";
import { directoryListings } from "../../../db/schema/index.ts";
import { normalizeHandle } from "../../agent/normalize-handle.ts";

export type ListingRow = typeof directoryListings.$inferSelect;

/** What a listing shows and what search indexes: from a profile snapshot plus the card. */
export interface ListingProfile {
  handle: string;
  displayName: string;
  headline: string;
  bio: string;
  skills: string[];
  interests: string[];
  openTo: string[];
  roles: string[];
  tags: string[];
  location: string | null;
}

/** The SPEC's DiscoveryResult, plus where the card lives and the listing's extra facets. */
export interface DiscoveryResult {
  agentId: string;
  handle: string;
  displayName: string;
  bio: string;
  skills: string[];
  interests: string[];
  headline: string;
  openTo: string[];
  tags: string[];
  roles: string[];
  location: string | null;
  cardUrl: string;
  source: "self" | "remote";
}

/**
 * Case-, accent- and spacing-insensitive form of a facet value (a skill, interest, …), the form
 * the exact filters of `/discover` and the tag match of INK discovery queries compare.
 */
export function normalizeFacet(value: string): string {
  return value.normalize("NFKD").replace(/\p{M}/gu, "").toLowerCase().replace(/\s+/g, " ").trim();
}

/** Facet kinds: s = skill (a card's discovery tags count as skills), i = interest, o = open to, r = role. */
export type FacetKind = "s" | "i" | "o" | "r";

export function facetNeedle(kind: FacetKind, value: string): string {
  return `\n${kind}:${normalizeFacet(value)}\n`;
}

function facetsOf(p: ListingProfile): string {
  const lines = new Set<string>();
  const add = (kind: FacetKind, values: string[]) => values.forEach((v) => lines.add(`${kind}:${normalizeFacet(v)}`));
  add("s", [...p.skills, ...p.tags]);
  add("i", p.interests);
  add("o", p.openTo);
  add("r", p.roles);
  return `\n${[...lines].join("\n")}\n`;
}

export function findListing(db: Db | Tx, principal: string): ListingRow | null {
  return db.select().from(directoryListings).where(eq(directoryListings.principal, principal)).get() ?? null;
}

/**
 * Lists (or re-lists, or refreshes) an agent in the caller's transaction. The FTS triggers index
 * the row in the same statement. `listedAt` is kept while the agent stays listed, so the oldest
 * listing of a handle keeps winning `GET /{handle}`.
 */
export function saveListing(
  tx: Tx,
  input: { principal: string; agentId: string; cardUrl: string; source: "self" | "remote"; profile: ListingProfile },
  now: number,
  nextValidationAt: number | null,
): ListingRow {
  const p = input.profile;
  const existing = findListing(tx, input.principal);
  const values = {
    agentId: input.agentId,
    cardUrl: input.cardUrl,
    handle: p.handle,
    handleKey: normalizeHandle(p.handle),
    displayName: p.displayName,
    headline: p.headline,
    bio: p.bio,
    skills: JSON.stringify(p.skills),
    interests: JSON.stringify(p.interests),
    openTo: JSON.stringify(p.openTo),
    roles: JSON.stringify(p.roles),
    tags: JSON.stringify(p.tags),
    location: p.location,
    facets: facetsOf(p),
    source: input.source,
    status: "listed" as const,
    listedAt: existing?.status === "listed" ? existing.listedAt : now,
    updatedAt: now,
    lastValidatedAt: now,
    nextValidationAt,
    failures: 0,
    lastError: null,
  };
  if (existing) return tx.update(directoryListings).set(values).where(eq(directoryListings.id, existing.id)).returning().get()!;
  return tx.insert(directoryListings).values({ principal: input.principal, ...values }).returning().get()!;
}

/** Delists (by the agent's own request) or drops (failed re-validation); the FTS row goes with it. */
export function endListing(tx: Tx, id: number, status: "delisted" | "dropped", now: number, error: string | null = null): ListingRow {
  return tx
    .update(directoryListings)
    .set({ status, updatedAt: now, nextValidationAt: null, ...(error !== null ? { lastError: error } : {}) })
    .where(eq(directoryListings.id, id))
    .returning()
    .get()!;
}

export function profileOf(row: ListingRow): ListingProfile {
  return {
    handle: row.handle,
    displayName: row.displayName,
    headline: row.headline,
    bio: row.bio,
    skills: strings(row.skills),
    interests: strings(row.interests),
    openTo: strings(row.openTo),
    roles: strings(row.roles),
    tags: strings(row.tags),
    location: row.location,
  };
}

/** A search hit as the API shows it; `row` holds the raw columns (JSON arrays as text). */
export function discoveryResult(row: {
  agentId: string;
  handle: string;
  displayName: string;
  bio: string;
  skills: string;
  interests: string;
  headline: string;
  openTo: string;
  tags: string;
  roles: string;
  location: string | null;
  cardUrl: string;
  source: "self" | "remote";
}): DiscoveryResult {
  return {
    agentId: row.agentId,
    handle: row.handle,
    displayName: row.displayName,
    bio: row.bio,
    skills: strings(row.skills),
    interests: strings(row.interests),
    headline: row.headline,
    openTo: strings(row.openTo),
    tags: strings(row.tags),
    roles: strings(row.roles),
    location: row.location,
    cardUrl: row.cardUrl,
    source: row.source,
  };
}

function strings(json: string): string[] {
  try {
    const value = JSON.parse(json) as unknown;
    return Array.isArray(value) ? value.filter((x): x is string => typeof x === "string") : [];
  } catch {
    return [];
  }
}
