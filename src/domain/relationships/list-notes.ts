import { and, desc, eq, lt, or, type SQL } from "drizzle-orm";
import * as v from "valibot";
import { connections, relationshipNotes } from "../../db/schema/index.ts";
import type { Ctx } from "../context.ts";
import { notFound } from "../internal/errors.ts";
import { DEFAULT_LIMIT, decodeCursor, PageQuery, pageOf, type Page } from "../internal/pagination.ts";
import { requireOwner } from "../internal/actors.ts";
import { noteView, type NoteView } from "./internal/note-view.ts";

export const NotesQuery = v.object({ ...PageQuery.entries });
export type NotesQuery = v.InferOutput<typeof NotesQuery>;

/** The owner's notes on one relationship, newest first. */
export function listNotes(ctx: Ctx, connectionId: string, query: NotesQuery): Page<NoteView> {
  requireOwner(ctx, "reads notes");
  if (!ctx.db.select({ id: connections.id }).from(connections).where(eq(connections.id, connectionId)).get()) throw notFound("connection");
  const filters: SQL[] = [eq(relationshipNotes.connectionId, connectionId)];
  const cursor = decodeCursor(query.cursor);
  if (cursor) filters.push(or(lt(relationshipNotes.createdAt, cursor.at), and(eq(relationshipNotes.createdAt, cursor.at), lt(relationshipNotes.id, cursor.id)))!);
  const limit = query.limit ?? DEFAULT_LIMIT;
  const rows = ctx.db.select().from(relationshipNotes).where(and(...filters)).orderBy(desc(relationshipNotes.createdAt), desc(relationshipNotes.id)).limit(limit + 1).all();
  return pageOf(rows, limit, (r) => ({ at: r.createdAt, id: r.id }), noteView);
}

