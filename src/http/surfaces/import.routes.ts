import * as v from "valibot";
import { importLinkedIn, ImportLinkedInInput, MAX_CSV_BYTES } from "../../domain/contacts/import-linkedin.ts";
import type { OwnerTokens } from "../../security/owner-token.ts";
import type { SurfaceDeps } from "../deps.ts";
import { OWNER_SECURITY } from "../plugins/owner-auth.ts";
import { jsonBody } from "../schemas/body.ts";
import { errors } from "../schemas/common.ts";
import { ownerApi } from "./owner.routes.ts";

/** The CSV's 2 MiB as a JSON string: escaping can double it, plus room for the wrapper. */
const IMPORT_MAX_BYTES = 2 * MAX_CSV_BYTES + 64 * 1024;

const ImportResultDoc = v.pipe(
  v.object({
    created: v.number(),
    updated: v.number(),
    unchanged: v.number(),
    skipped: v.array(v.object({ row: v.pipe(v.number(), v.description("Line of the file where the row starts")), reason: v.string() })),
    total: v.pipe(v.number(), v.description("Data rows after the header")),
  }),
  v.description("What a LinkedIn import did"),
);

/** Contact imports (SPEC `POST /api/svc/import/linkedin`). */
export function importRoutes(deps: SurfaceDeps, o: { tokens: Pick<OwnerTokens, "verify"> }) {
  return ownerApi(o.tokens).post("/import/linkedin", ({ actor, body }) => importLinkedIn(deps.ctx(actor), body), {
    body: jsonBody(ImportLinkedInInput, { maxBytes: IMPORT_MAX_BYTES }),
    response: { 200: ImportResultDoc, ...errors(400, 401, 413) },
    detail: {
      tags: ["Connections"],
      summary: "Import LinkedIn connections",
      description:
        "body {csv}: the text of LinkedIn's Connections.csv (the Notes preamble, quoted fields, the header First Name, Last Name, URL, Email Address, Company, Position, Connected On; emails may be empty). " +
        "Creates or updates contacts (status contact, layer known, source linkedin, no agent id), recognised by profile URL, else email: re-importing the same file changes nothing. " +
        "Rows without a name, or without URL and email, duplicates and malformed values are skipped with their line and reason. 400 when the file is not a LinkedIn export or not CSV; 413 over 2 MiB or 20,000 rows. Connected On is not stored.",
      security: OWNER_SECURITY,
    },
  });
}
