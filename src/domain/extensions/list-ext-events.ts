import { asc, eq, gt, min } from "drizzle-orm";
import * as v from "valibot";
import { transaction, type Db } from "../../db/client.ts";
import { connections, events, settings } from "../../db/schema/index.ts";
import { formatTimestamp } from "../../ink/index.ts";
import type { Ctx } from "../context.ts";
import { DomainError } from "../errors.ts";
import { requireExtension } from "../internal/actors.ts";
import { lastEventSeq } from "../internal/events.ts";
import { wireDoc } from "../internal/wire-doc.ts";
import { findInstallation, manifestOf } from "./internal/installation-row.ts";
import { audienceKey } from "../network/audience-key.ts";
import { mapEvent, visibleTo, type FeedEvent } from "./internal/feed-kinds.ts";

export const EventsQuery = v.object({
  since: v.optional(v.pipe(v.string(), v.regex(/^\d{1,15}$/, "since: a sequence number (integer ≥ 0)"), v.transform(Number), wireDoc({ type: "integer", minimum: 0 }))),
  limit: v.optional(v.pipe(v.string(), v.regex(/^\d{1,3}$/, "limit: an integer from 1 to 500"), v.transform(Number), v.minValue(1, "limit: at least 1"), v.maxValue(500, "limit: at most 500"), wireDoc({ type: "integer", minimum: 1, maximum: 500, default: 100 }))),
  kinds: v.optional(v.pipe(v.string(), v.maxLength(1000), v.regex(/^([a-z_]+\.(\*|[a-z_]+))(,[a-z_]+\.(\*|[a-z_]+)){0,19}$/, "kinds: up to 20 comma-separated kinds or noun.*"), wireDoc({ type: "string", description: "comma-separated kinds, noun.* wildcards" }))),
});
export type EventsQuery = v.InferOutput<typeof EventsQuery>;

export interface EventsPage {
  streamId: string;
  events: FeedEvent[];
  nextSince: number;
  hasMore: boolean;
  latest: number;
  oldestAvailable: number;
  gap?: { reason: "since_before_retention"; from: number; to: number };
}

/** Rows read per request at most: filtered-out events are skipped in bounded steps. */
const MAX_SCAN = 2000;
/** The settings row holding the feed's streamId; `kith restore` deletes it, so a restored node starts a new stream. */
export const STREAM_SETTING = "event_stream_id";

/**
 * GET /ext/v1/events (events:subscribe; EXTENSIONS §3.2): the node's one event log after
 * `since`, as the kinds an extension may see, decided at read time (permission, its own
 * intents and approvals, the contact's layer *now*, the manifest's `events[]` ∩ `kinds`).
 * `nextSince` is the last sequence *scanned*, so the cursor moves past what the caller may not
 * see without revealing it; `since` omitted starts from now; past `latest` it is 400
 * `since_in_future` (with `latest` and `streamId`); below what is kept it says `gap`.
 */
export function listExtEvents(ctx: Ctx, query: EventsQuery): EventsPage {
  const actor = requireExtension(ctx, "events:subscribe");
  const streamId = streamIdOf(ctx);
  const latest = lastEventSeq(ctx.db);
  const oldestAvailable = ctx.db.select({ seq: min(events.seq) }).from(events).get()?.seq ?? latest + 1;
  const since = query.since ?? latest;
  if (since > latest) throw new DomainError("invalid_input", `since is past the latest sequence (${latest}); resync from the resource endpoints`, { reason: "since_in_future", fields: { latest, streamId } });
  const limit = query.limit ?? 100;
  const row = findInstallation(ctx.db, actor.installationId);
  const declared = row ? manifestOf(row).events ?? null : null;
  const asked = query.kinds ? query.kinds.split(",") : null;
  const out: FeedEvent[] = [];
  let scanned = since;
  const rows = ctx.db.select().from(events).where(gt(events.seq, since)).orderBy(asc(events.seq)).limit(MAX_SCAN).all();
  for (const r of rows) {
    if (out.length === limit) break;
    scanned = r.seq;
    const m = mapEvent(r);
    if (!m || !visibleTo(actor, m, declared) || (asked && !visibleTo(actor, m, asked))) continue;
    if (m.audiences) {
      // what changed in the analysis as this installation's layers see it (domain/network)
      const seen = m.audiences[audienceKey(actor.layers)];
      if (seen) out.push(feedEvent(r.seq, r.createdAt, m.kind, m.subject, seen));
      continue;
    }
    let layer: string | undefined;
    if (m.contactId !== undefined) {
      layer = layerOf(ctx.db, m.contactId) ?? undefined;
      const inScope = (l: unknown) => typeof l === "string" && actor.layers.includes(l);
      if (m.kind === "connection.layer_changed") {
        // A move between layers outside the grant is not the extension's business; into or out of it says only that (EXTENSIONS §3.2).
        if (!inScope(m.data.from) && !inScope(m.data.to)) continue;
        if (inScope(m.data.from) !== inScope(m.data.to)) {
          out.push(feedEvent(r.seq, r.createdAt, inScope(m.data.to) ? "connection.entered_scope" : "connection.left_scope", { type: "contact", id: m.contactId }, {}));
          continue;
        }
      }
      if (layer === undefined || !actor.layers.includes(layer)) continue;
    }
    out.push(feedEvent(r.seq, r.createdAt, m.kind, { ...m.subject, ...(layer ? { layer } : {}) }, m.data));
  }
  const page: EventsPage = { streamId, events: out, nextSince: scanned, hasMore: scanned < latest, latest, oldestAvailable };
  if (since < oldestAvailable - 1) page.gap = { reason: "since_before_retention", from: since + 1, to: oldestAvailable - 1 };
  return page;
}

function feedEvent(seq: number, at: number, kind: string, subject: FeedEvent["subject"], data: Record<string, unknown>): FeedEvent {
  return { seq, id: `evt_${seq}`, kind, occurredAt: formatTimestamp(at), subject, data, v: 1 };
}

function layerOf(db: Db, contactId: string): string | null {
  const row = db.select({ layer: connections.layer, layerOverride: connections.layerOverride }).from(connections).where(eq(connections.id, contactId)).get();
  return row ? (row.layerOverride ?? row.layer) : null;
}

/** The feed's id for this database's lifetime, made once (a client seeing it change resyncs). */
function streamIdOf(ctx: Ctx): string {
  const found = ctx.db.select({ value: settings.value }).from(settings).where(eq(settings.key, STREAM_SETTING)).get();
  if (found) return found.value;
  const id = `st_${ctx.ids.next()}`;
  transaction(ctx.db, (tx) => tx.insert(settings).values({ key: STREAM_SETTING, value: id, updatedAt: ctx.clock.now() }).onConflictDoNothing().run());
  return ctx.db.select({ value: settings.value }).from(settings).where(eq(settings.key, STREAM_SETTING)).get()!.value;
}
