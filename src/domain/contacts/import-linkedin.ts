import { eq } from "drizzle-orm";
import * as v from "valibot";
import { transaction } from "../../db/client.ts";
import { connections } from "../../db/schema/index.ts";
import type { Ctx } from "../context.ts";
import { DomainError } from "../errors.ts";
import { invalidInput } from "../internal/errors.ts";
import { recordEvent } from "../internal/events.ts";
import { requireOwner } from "../internal/actors.ts";

export const MAX_CSV_BYTES = 2 * 1024 * 1024;

export const ImportLinkedInInput = v.strictObject({
  csv: v.pipe(v.string("csv: the text of Connections.csv"), v.minLength(1, "csv: must not be empty"), v.description("The text of LinkedIn's Connections.csv export (at most 2 MiB, 20,000 rows)")),
});
export type ImportLinkedInInput = v.InferOutput<typeof ImportLinkedInInput>;

export interface ImportResult {
  created: number;
  updated: number;
  unchanged: number;
  skipped: Array<{ row: number; reason: string }>;
  /** Data rows in the file (after the header, blank lines not counted). */
  total: number;
}

/**
 * `POST /api/svc/import/linkedin`: creates or updates contacts (status `contact`, layer `known`,
 * no agent id) from LinkedIn's export, in one transaction. Idempotent: a contact is recognised
 * by its profile URL, or its email when the row has no URL (and a later URL upgrades an
 * email-keyed contact), so re-importing the same file changes nothing.
 */
export async function importLinkedIn(ctx: Ctx, input: ImportLinkedInInput): Promise<ImportResult> {
  requireOwner(ctx, "imports contacts");
  if (new TextEncoder().encode(input.csv).length > MAX_CSV_BYTES) throw new DomainError("payload_too_large", `csv: at most ${MAX_CSV_BYTES / 1024 / 1024} MiB`);
  // The CSV parser is loaded on the first import, not at every start (~3 ms of start-up).
  const { parseLinkedInCsv } = await import("./internal/linkedin-csv.ts");
  const parsed = parseLinkedInCsv(input.csv);
  if (!parsed.ok) throw parsed.reason === "too_many_rows" ? new DomainError("payload_too_large", parsed.message) : invalidInput(parsed.message);
  const now = ctx.clock.now();
  return transaction(ctx.db, (tx) => {
    const existing = new Map(tx.select().from(connections).where(eq(connections.source, "linkedin")).all().map((r) => [r.importKey ?? "", r]));
    const fresh: Array<typeof connections.$inferInsert> = [];
    let updated = 0;
    let unchanged = 0;
    for (const c of parsed.contacts) {
      const row = existing.get(c.key) ?? (c.emailKey ? existing.get(c.emailKey) : undefined);
      const values = { displayName: c.displayName, email: c.email ?? row?.email ?? null, company: c.company, position: c.position, linkedinUrl: c.linkedinUrl ?? row?.linkedinUrl ?? null, importKey: c.key };
      if (!row) {
        fresh.push({ id: `con_${ctx.ids.next()}`, principal: null, agentId: null, status: "contact", initiatedBy: "us", source: "linkedin", layer: "known", health: "dormant", createdAt: now, updatedAt: now, ...values });
        continue;
      }
      const same = row.displayName === values.displayName && row.email === values.email && row.company === values.company && row.position === values.position && row.linkedinUrl === values.linkedinUrl && row.importKey === values.importKey;
      if (same) {
        unchanged++;
        continue;
      }
      tx.update(connections).set({ ...values, updatedAt: now }).where(eq(connections.id, row.id)).run();
      existing.set(c.key, { ...row, ...values });
      updated++;
    }
    for (let i = 0; i < fresh.length; i += 500) tx.insert(connections).values(fresh.slice(i, i + 500)).run();
    const created = fresh.length;
    recordEvent(tx, "contacts.imported", now, { source: "linkedin", created, updated, unchanged, skipped: parsed.skipped.length });
    return { created, updated, unchanged, skipped: parsed.skipped, total: parsed.total };
  });
}
