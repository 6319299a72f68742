import { and, eq, inArray, sql } from "drizzle-orm";
import { directoryPushes, outbox } from "../../db/schema/index.ts";
import { findAgentRow } from "../../domain/agent/find-agent-row.ts";
import { findOwnListing } from "../../domain/discovery/find-own-listing.ts";
import { fail, formatAge, ok, skip, warn, type CheckResult, type DoctorContext } from "./check.ts";

/** Deliveries waiting: how many, and how long the oldest has waited (the worker retries for about a day). */
export function checkOutbox(ctx: DoctorContext): CheckResult {
  if (!ctx.db) return skip("outbox", "database not opened");
  const row = ctx.db.select({ n: sql<number>`count(*)`, oldest: sql<number | null>`min(${outbox.createdAt})` }).from(outbox).where(eq(outbox.status, "queued")).get();
  const n = row?.n ?? 0;
  if (n === 0 || row?.oldest == null) return ok("outbox", "no deliveries waiting");
  const age = ctx.now - row.oldest;
  const message = `${n} deliver${n === 1 ? "y" : "ies"} waiting, the oldest for ${formatAge(age)}`;
  const fix = "see which peers fail (the failing-peers line, GET /api/svc/messages/sent); check this node's outbound network and that kith serve is running";
  if (age > ctx.limits.outboxFailMs) return fail("outbox", message, fix);
  if (age > ctx.limits.outboxWarnMs) return warn("outbox", message, fix);
  return ok("outbox", message);
}

/** Peers every delivery to which has failed for a long time (gave up, or still retrying), with their last error. */
export function checkFailingPeers(ctx: DoctorContext): CheckResult {
  if (!ctx.db) return skip("failing-peers", "database not opened");
  const since = ctx.now - ctx.limits.peerFailingMs;
  const rows = ctx.db
    .select({
      peer: outbox.peerPrincipal,
      firstFailure: sql<number>`min(${outbox.createdAt})`,
      lastError: sql<string | null>`(select o2.last_error from outbox o2 where o2.peer_principal = ${outbox.peerPrincipal} and o2.last_error is not null order by o2.last_attempt_at desc limit 1)`,
    })
    .from(outbox)
    .where(and(inArray(outbox.status, ["queued", "failed"]), sql`${outbox.attempts} > 0`))
    .groupBy(outbox.peerPrincipal)
    .all()
    // failing for long, and nothing delivered to that peer since the failures began
    .filter((r) => r.firstFailure < since && !deliveredSince(ctx, r.peer, r.firstFailure));
  if (rows.length === 0) return ok("failing-peers", `no peer has failed every delivery for over ${formatAge(ctx.limits.peerFailingMs)}`);
  const named = rows.slice(0, 5).map((r) => `${r.peer} since ${formatAge(ctx.now - r.firstFailure)} (${r.lastError ?? "no answer"})`);
  return warn("failing-peers", `deliveries fail to ${rows.length} peer${rows.length === 1 ? "" : "s"}: ${named.join("; ")}${rows.length > 5 ? "; …" : ""}`, "these peers may be gone or misconfigured: ask them, or remove the connection; failed messages can be resent from the owner API");
}

function deliveredSince(ctx: DoctorContext, peer: string, since: number): boolean {
  const row = ctx.db!.select({ n: sql<number>`count(*)` }).from(outbox).where(and(eq(outbox.peerPrincipal, peer), eq(outbox.status, "delivered"), sql`${outbox.deliveredAt} >= ${since}`)).get();
  return (row?.n ?? 0) > 0;
}

/** Each configured directory (KITH_DIRECTORIES): whether this node's publication reached it. */
export function checkDirectories(ctx: DoctorContext): CheckResult[] {
  if (ctx.config.directories.length === 0) return [skip("directories", "no directory configured (KITH_DIRECTORIES)")];
  if (!ctx.db) return [skip("directories", "database not opened")];
  const agent = findAgentRow(ctx.db);
  const listed = agent ? findOwnListing(ctx.db, agent, ctx.config.wordmark)?.status === "listed" : false;
  const pushes = ctx.db.select().from(directoryPushes).where(inArray(directoryPushes.directory, ctx.config.directories)).all();
  return ctx.config.directories.map((directory) => {
    const name = `directory ${directory}`;
    const push = pushes.find((p) => p.directory === directory);
    if (!push) {
      return listed ? warn(name, "the agent is published but nothing was pushed to this directory yet", "restart kith serve (it pushes to every configured directory), or publish again: POST /api/svc/discovery/publish") : ok(name, "the agent is not published; nothing to push");
    }
    if (push.status === "delivered") return ok(name, `${push.action} delivered${push.remoteStatus ? `: ${push.remoteStatus}` : ""}`);
    if (push.status === "failed") return fail(name, `${push.action} gave up after ${push.attempts} attempts: ${push.lastError ?? "no answer"}`, "check the directory URL in KITH_DIRECTORIES and that it accepts listings, then publish again (POST /api/svc/discovery/publish)");
    if (push.attempts > 0) return warn(name, `${push.action} retrying (${push.attempts} attempts): ${push.lastError ?? "no answer"}`, "check the directory URL in KITH_DIRECTORIES and this node's outbound network");
    return ok(name, `${push.action} queued`);
  });
}
