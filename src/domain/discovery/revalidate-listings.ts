import { and, asc, eq, lte } from "drizzle-orm";
import { transaction } from "../../db/client.ts";
import { directoryListings } from "../../db/schema/index.ts";
import type { With } from "../context.ts";
import { fetchPeerCard } from "../peers/fetch-peer-card.ts";
import { listingProfileFromCard, optedIn } from "./internal/card-listing.ts";
import { endListing, saveListing, type ListingRow } from "./internal/listings.ts";
import { isNetworkFailure, isTransientStatus } from "../internal/retry.ts";

/** A listing whose card cannot be reached this many times in a row is dropped. */
export const MAX_NETWORK_FAILURES = 3;
/** First retry after a network failure; doubles per failure, never later than the normal interval. */
const RETRY_BASE_MS = 5 * 60 * 1000;
/** Listings checked per pass at most. */
export const REVALIDATION_BATCH = 50;
const CONCURRENCY = 8;

export interface RevalidationReport {
  checked: number;
  kept: number;
  dropped: number;
  /** Network failures counted, listing kept for now. */
  failing: number;
}

/**
 * Re-fetches the cards of remote listings that are due (under the same discovery-fetch contract
 * and SSRF gate as at listing time) and keeps, refreshes or drops each: still valid, same agent id,
 * still bound to its id and still opted in → re-indexed from the card; a definitive failure (any
 * answer but 200 other than 408/425/429/5xx, an invalid card, another agent id, the genesis key
 * gone, discovery turned off) → dropped at once; an unreachable host or a transient answer →
 * counted, retried sooner, dropped after MAX_NETWORK_FAILURES in a row. A failure is never kept
 * as a negative: the next successful fetch resets the count.
 */
export async function revalidateListings(ctx: With<"node" | "vault" | "peers" | "directory">): Promise<RevalidationReport> {
  const report: RevalidationReport = { checked: 0, kept: 0, dropped: 0, failing: 0 };
  const now = ctx.clock.now();
  const due = ctx.db
    .select()
    .from(directoryListings)
    .where(and(eq(directoryListings.status, "listed"), eq(directoryListings.source, "remote"), lte(directoryListings.nextValidationAt, now)))
    .orderBy(asc(directoryListings.nextValidationAt))
    .limit(REVALIDATION_BATCH)
    .all();
  let next = 0;
  const worker = async () => {
    while (next < due.length) {
      const row = due[next++]!;
      const verdict = await check(ctx, row);
      report.checked++;
      report[verdict]++;
    }
  };
  await Promise.all(Array.from({ length: Math.min(CONCURRENCY, due.length) }, worker));
  if (report.checked > 0) ctx.log.info("directory listings re-validated", { ...report });
  return report;
}

async function check(ctx: With<"node" | "vault" | "peers" | "directory">, row: ListingRow): Promise<"kept" | "dropped" | "failing"> {
  const fetched = await fetchPeerCard(ctx, { cardUrl: row.cardUrl, agentId: row.agentId });
  const now = ctx.clock.now();
  let problem: string | null = null;
  if (fetched.ok) {
    if (!optedIn(fetched.card)) problem = "discovery_not_enabled: the card's discovery descriptor is off";
    else {
      const card = fetched.card;
      transaction(ctx.db, (tx) => {
        const current = tx.select({ status: directoryListings.status, cardUrl: directoryListings.cardUrl }).from(directoryListings).where(eq(directoryListings.id, row.id)).get();
        // A listing delisted or moved while the card was being fetched stays as it is now.
        if (current?.status === "listed" && current.cardUrl === row.cardUrl) {
          saveListing(tx, { principal: row.principal, agentId: row.agentId, cardUrl: row.cardUrl, source: "remote", profile: listingProfileFromCard(card) }, now, now + ctx.directory.revalidateMs);
        }
      });
      return "kept";
    }
  }
  if (!fetched.ok) {
    const detail = `${fetched.reason}${fetched.httpStatus ? ` (HTTP ${fetched.httpStatus})` : ""}${fetched.detail ? `: ${fetched.detail}` : ""}`;
    if (isNetworkFailure(fetched.reason) || (fetched.reason === "status" && isTransientStatus(fetched.httpStatus))) {
      const failures = row.failures + 1;
      if (failures < MAX_NETWORK_FAILURES) {
        const retryIn = Math.min(ctx.directory.revalidateMs, RETRY_BASE_MS * 2 ** (failures - 1));
        transaction(ctx.db, (tx) => {
          tx.update(directoryListings)
            .set({ failures, lastError: detail, nextValidationAt: now + retryIn })
            .where(and(eq(directoryListings.id, row.id), eq(directoryListings.status, "listed")))
            .run();
        });
        ctx.log.warn("directory listing card unreachable", { principal: row.principal, failures, reason: detail });
        return "failing";
      }
      problem = `unreachable ${failures} times in a row: ${detail}`;
    } else {
      problem = detail;
    }
  }
  transaction(ctx.db, (tx) => {
    const current = tx.select({ status: directoryListings.status }).from(directoryListings).where(eq(directoryListings.id, row.id)).get();
    if (current?.status === "listed") {
      endListing(tx, row.id, "dropped", now, problem);
      tx.update(directoryListings).set({ failures: row.failures + (fetched.ok ? 0 : 1) }).where(eq(directoryListings.id, row.id)).run();
    }
  });
  ctx.log.warn("directory listing dropped", { principal: row.principal, reason: problem });
  return "dropped";
}
