import { relationshipNotes } from "../../../db/schema/index.ts";

export interface NoteView {
  id: string;
  connectionId: string;
  text: string;
  createdAt: string;
}

export function noteView(row: typeof relationshipNotes.$inferSelect): NoteView {
  return { id: row.id, connectionId: row.connectionId, text: row.text, createdAt: new Date(row.createdAt).toISOString() };
}
