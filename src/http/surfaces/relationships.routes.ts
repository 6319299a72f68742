import * as v from "valibot";
import { addNote, AddNoteInput } from "../../domain/relationships/add-note.ts";
import { listNotes, NotesQuery } from "../../domain/relationships/list-notes.ts";
import type { OwnerTokens } from "../../security/owner-token.ts";
import type { SurfaceDeps } from "../deps.ts";
import { OWNER_SECURITY } from "../plugins/owner-auth.ts";
import { NoteDoc } from "../schemas/assistant.ts";
import { jsonBody } from "../schemas/body.ts";
import { errors } from "../schemas/common.ts";
import { pageDoc } from "../schemas/federation.ts";
import { ownerApi } from "./owner.routes.ts";

const IdParam = v.object({ id: v.pipe(v.string(), v.minLength(1), v.maxLength(256)) });

/** Relationship notes (SPEC `GET/POST /api/svc/connections/:id/notes`). */
export function relationshipRoutes(deps: SurfaceDeps, o: { tokens: Pick<OwnerTokens, "verify"> }) {
  const doc = (summary: string, description: string) => ({ tags: ["Connections"], summary, description, security: OWNER_SECURITY });
  return ownerApi(o.tokens)
    .get("/connections/:id/notes", ({ actor, params, query }) => listNotes(deps.ctx(actor), params.id, query), {
      params: IdParam,
      query: NotesQuery,
      response: { 200: pageDoc(NoteDoc), ...errors(400, 401, 404) },
      detail: doc("Relationship notes", "The owner's private notes on a connection or contact, newest first. Paginated: `limit` (1-200, default 50) and `cursor`."),
    })
    .post(
      "/connections/:id/notes",
      ({ actor, params, body, set }) => {
        set.status = 201;
        return addNote(deps.ctx(actor), params.id, body);
      },
      {
        params: IdParam,
        body: jsonBody(AddNoteInput),
        response: { 201: NoteDoc, ...errors(400, 401, 404, 409) },
        detail: doc("Add a relationship note", "text: 1–5000 characters (trimmed). At most 1000 notes per connection (409 beyond)."),
      },
    );
}
