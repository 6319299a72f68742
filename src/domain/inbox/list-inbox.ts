import { and, desc, eq, gte, inArray, lt, lte, ne, or, sql, type SQL } from "drizzle-orm";
import * as v from "valibot";
import { messageLabels, messages } from "../../db/schema/index.ts";
import { parseTimestamp } from "../../ink/index.ts";
import type { With } from "../context.ts";
import { invalidInput } from "../internal/errors.ts";
import { ownIdentity } from "../agent/own-identity.ts";
import { labelsOf } from "./internal/labels-of.ts";
import { messageView, type MessageView } from "../messages/message-view.ts";
import { DEFAULT_LIMIT, decodeCursor, PageQuery, pageOf, type Page } from "../internal/pagination.ts";
import { requireOwner } from "../internal/actors.ts";
import { principalOf } from "../internal/principal-of.ts";

const INBOX_STATUS = v.picklist(["unread", "read", "pending", "responded", "rejected", "expired"], "status: one of unread, read, pending, responded, rejected, expired");

export const InboxQuery = v.object({
  ...PageQuery.entries,
  status: v.optional(INBOX_STATUS),
  intent: v.optional(v.pipe(v.string(), v.maxLength(253))),
  label: v.optional(v.pipe(v.string(), v.maxLength(32, "label: at most 32 characters"), v.description("Only messages an automation rule labeled so"))),
});
export type InboxQuery = v.InferOutput<typeof InboxQuery>;

export const InboxSearchQuery = v.object({
  ...InboxQuery.entries,
  q: v.optional(v.pipe(v.string(), v.maxLength(200, "q: at most 200 characters"))),
  from: v.optional(v.pipe(v.string(), v.maxLength(512))),
  after: v.optional(v.pipe(v.string(), v.maxLength(64))),
  before: v.optional(v.pipe(v.string(), v.maxLength(64))),
});
export type InboxSearchQuery = v.InferOutput<typeof InboxSearchQuery>;

/** Received messages, newest first; retracted ones are hidden (INK `retract`). */
export function listInbox(ctx: With<"node">, query: InboxSearchQuery): Page<MessageView> {
  requireOwner(ctx, "reads the inbox");
  const filters: SQL[] = [eq(messages.direction, "in"), ne(messages.status, "retracted")];
  if (query.status) filters.push(eq(messages.status, query.status));
  if (query.intent) filters.push(eq(messages.intent, query.intent));
  if (query.label) filters.push(sql`EXISTS (SELECT 1 FROM ${messageLabels} WHERE ${messageLabels.messageId} = ${messages.id} AND ${messageLabels.label} = ${query.label})`);
  if (query.q) {
    const needle = `%${query.q.toLowerCase().replace(/[\\%_]/g, (c) => `\\${c}`)}%`;
    filters.push(sql`${messages.searchText} LIKE ${needle} ESCAPE '\\'`);
  }
  if (query.from) {
    const p = principalOf(query.from);
    filters.push(or(eq(messages.peerAgentId, query.from), ...(p !== null ? [eq(messages.peerPrincipal, p)] : []))!);
  }
  if (query.after) filters.push(gte(messages.receivedAt, timestamp("after", query.after)));
  if (query.before) filters.push(lte(messages.receivedAt, timestamp("before", query.before)));
  const cursor = decodeCursor(query.cursor);
  if (cursor) filters.push(or(lt(messages.receivedAt, cursor.at), and(eq(messages.receivedAt, cursor.at), lt(messages.id, cursor.id)))!);
  const limit = query.limit ?? DEFAULT_LIMIT;
  const rows = ctx.db.select().from(messages).where(and(...filters)).orderBy(desc(messages.receivedAt), desc(messages.id)).limit(limit + 1).all();
  const own = ownIdentity(ctx.db, ctx.node)?.agentId ?? null;
  const requests = rows.map((r) => r.inReplyTo).filter((x): x is string => x !== null);
  const envelopeOf = new Map(requests.length ? ctx.db.select({ id: messages.id, envelopeId: messages.envelopeId }).from(messages).where(inArray(messages.id, requests)).all().map((r) => [r.id, r.envelopeId]) : []);
  const labels = labelsOf(ctx.db, rows.map((r) => r.id));
  return pageOf(rows, limit, (r) => ({ at: r.receivedAt, id: r.id }), (r) => ({ ...messageView(r, own, null, r.inReplyTo ? (envelopeOf.get(r.inReplyTo) ?? null) : null), labels: labels.get(r.id) ?? [] }));
}

function timestamp(name: string, value: string): number {
  const ms = parseTimestamp(value);
  if (ms === null) throw invalidInput(`${name}: not an RFC 3339 timestamp (e.g. 2026-01-31T09:00:00Z)`);
  return ms;
}

