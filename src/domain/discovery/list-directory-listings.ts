import { and, desc, eq, lt, or, type SQL } from "drizzle-orm";
import * as v from "valibot";
import { directoryListings } from "../../db/schema/index.ts";
import type { Ctx } from "../context.ts";
import { decodeCursor, DEFAULT_LIMIT, pageOf, PageQuery, type Page } from "../internal/pagination.ts";
import { discoveryResult, type DiscoveryResult } from "./internal/listings.ts";
import { requireOwner } from "../internal/actors.ts";
import { iso } from "../internal/iso.ts";

export const ListingsQuery = v.object({
  ...PageQuery.entries,
  status: v.optional(v.picklist(["listed", "delisted", "dropped", "all"], "status: listed, delisted, dropped or all")),
  source: v.optional(v.picklist(["self", "remote"], "source: self or remote")),
});
export type ListingsQuery = v.InferOutput<typeof ListingsQuery>;

export interface DirectoryListingView extends DiscoveryResult {
  status: "listed" | "delisted" | "dropped";
  listedAt: string;
  updatedAt: string;
  lastValidatedAt: string | null;
  nextValidationAt: string | null;
  failures: number;
  lastError: string | null;
}

/**
 * `GET /api/svc/discovery/listings`: what this node's directory holds, for its owner, including
 * delisted and dropped entries with the reason (never shown by search). Most recently changed first.
 */
export function listDirectoryListings(ctx: Ctx, query: ListingsQuery): Page<DirectoryListingView> {
  requireOwner(ctx, "sees the directory's listings");
  const limit = query.limit ?? DEFAULT_LIMIT;
  const cursor = decodeCursor(query.cursor);
  const filters: SQL[] = [];
  const status = query.status ?? "all";
  if (status !== "all") filters.push(eq(directoryListings.status, status));
  if (query.source) filters.push(eq(directoryListings.source, query.source));
  if (cursor) filters.push(or(lt(directoryListings.updatedAt, cursor.at), and(eq(directoryListings.updatedAt, cursor.at), lt(directoryListings.id, Number(cursor.id) || 0)))!);
  const rows = ctx.db.select().from(directoryListings).where(and(...filters)).orderBy(desc(directoryListings.updatedAt), desc(directoryListings.id)).limit(limit + 1).all();
  return pageOf(
    rows,
    limit,
    (r) => ({ at: r.updatedAt, id: String(r.id) }),
    (r) => ({
      ...discoveryResult(r),
      status: r.status,
      listedAt: iso(r.listedAt)!,
      updatedAt: iso(r.updatedAt)!,
      lastValidatedAt: iso(r.lastValidatedAt),
      nextValidationAt: iso(r.nextValidationAt),
      failures: r.failures,
      lastError: r.lastError,
    }),
  );
}
