import { count, eq } from "drizzle-orm";
import * as v from "valibot";
import { transaction } from "../../db/client.ts";
import { connections, relationshipNotes } from "../../db/schema/index.ts";
import type { Ctx } from "../context.ts";
import { conflict, notFound } from "../internal/errors.ts";
import { noteView, type NoteView } from "./internal/note-view.ts";
import { requireOwner } from "../internal/actors.ts";

export const NOTE_MAX_CHARS = 5000;
export const NOTES_PER_CONNECTION = 1000;

export const AddNoteInput = v.strictObject({
  text: v.pipe(
    v.string("text: a string"),
    v.transform((s) => s.trim()),
    v.minLength(1, "text: must not be empty"),
    v.maxLength(NOTE_MAX_CHARS, `text: at most ${NOTE_MAX_CHARS} characters`),
    v.description(`The note (1–${NOTE_MAX_CHARS} characters); private to the owner`),
  ),
});
export type AddNoteInput = v.InferOutput<typeof AddNoteInput>;

/** The owner writes a private note on a relationship (at most NOTES_PER_CONNECTION per connection). */
export function addNote(ctx: Ctx, connectionId: string, input: AddNoteInput): NoteView {
  requireOwner(ctx, "writes notes");
  const now = ctx.clock.now();
  return transaction(ctx.db, (tx) => {
    if (!tx.select({ id: connections.id }).from(connections).where(eq(connections.id, connectionId)).get()) throw notFound("connection");
    const existing = tx.select({ n: count() }).from(relationshipNotes).where(eq(relationshipNotes.connectionId, connectionId)).get()?.n ?? 0;
    if (existing >= NOTES_PER_CONNECTION) throw conflict(`this connection already has ${NOTES_PER_CONNECTION} notes`);
    const row = { id: `note_${ctx.ids.next()}`, connectionId, text: input.text, createdAt: now };
    tx.insert(relationshipNotes).values(row).run();
    return noteView(row);
  });
}
