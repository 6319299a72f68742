import { profileOf, type ListingRow } from "./internal/listings.ts";

/**
 * The card's INK `discovery` descriptor (INK §11): opt-in, scope `public` (never wider than the
 * card's visibility, which is public). `location` and `roles` are Kith's own members; INK
 * validators ignore unknown descriptor members.
 */
export interface DiscoveryDescriptor {
  enabled: boolean;
  scope: "public";
  tags?: string[];
  queryable?: boolean;
  updatedAt: string;
  location?: string;
  roles?: string[];
}

/** The descriptor for the card: absent before the first publish, `enabled: false` after unpublish. */
export function discoveryDescriptor(row: ListingRow | null): DiscoveryDescriptor | null {
  if (!row) return null;
  const updatedAt = new Date(row.updatedAt).toISOString();
  if (row.status !== "listed") return { enabled: false, scope: "public", updatedAt };
  const p = profileOf(row);
  return {
    enabled: true,
    scope: "public",
    tags: p.tags,
    queryable: true,
    updatedAt,
    ...(p.location ? { location: p.location } : {}),
    ...(p.roles.length > 0 ? { roles: p.roles } : {}),
  };
}
