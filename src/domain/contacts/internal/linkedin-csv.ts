import { CsvError, parse } from "csv-parse/sync";

/**
 * LinkedIn's "Connections.csv" export, parsed with the csv project's parser (RFC 4180 quoting:
 * commas and line breaks inside quoted fields, doubled quotes; BOM; blank lines). The export
 * starts with a "Notes:" preamble (a quoted paragraph about missing emails), then the header
 * `First Name,Last Name,URL,Email Address,Company,Position,Connected On`, then one row per
 * connection; emails are often empty. Pure: rows are checked here, stored by importLinkedIn.
 */
export const LINKEDIN_HEADER = ["First Name", "Last Name", "URL", "Email Address", "Company", "Position", "Connected On"] as const;
export const MAX_ROWS = 20_000;
const HEADER_SEARCH_RECORDS = 50;
const EMAIL = /^[^\s@]{1,64}@[^\s@]{1,253}\.[^\s@]{1,63}$/;

export interface LinkedInContact {
  /** The line of the file where the row starts (1-based), as an editor shows it. */
  row: number;
  /** Idempotency key: `linkedin:<host/path>` from the profile URL, else `email:<address>`. */
  key: string;
  emailKey: string | null;
  displayName: string;
  email: string | null;
  company: string | null;
  position: string | null;
  linkedinUrl: string | null;
}

export type ParsedExport =
  | { ok: true; contacts: LinkedInContact[]; skipped: Array<{ row: number; reason: string }>; total: number }
  | { ok: false; reason: "not_linkedin" | "unparseable" | "too_many_rows"; message: string };

export function parseLinkedInCsv(csv: string): ParsedExport {
  let records: Array<{ record: string[]; info: { lines: number }; raw: string }>;
  try {
    // One line ending (files that went through several editors mix them), so line numbers are right.
    const text = csv.replace(/\r\n?/g, "\n");
    records = parse(text, { bom: true, relax_column_count: true, skip_empty_lines: true, info: true, raw: true, trim: false, record_delimiter: "\n" }) as unknown as typeof records;
  } catch (e) {
    const detail = e instanceof CsvError ? e.message : "malformed CSV";
    return { ok: false, reason: "unparseable", message: `the CSV could not be parsed: ${detail}` };
  }
  const headerAt = records.slice(0, HEADER_SEARCH_RECORDS).findIndex((r) => LINKEDIN_HEADER.every((h) => r.record.some((f) => f.trim().toLowerCase() === h.toLowerCase())));
  if (headerAt < 0) return { ok: false, reason: "not_linkedin", message: `not a LinkedIn Connections.csv: no header line "${LINKEDIN_HEADER.join(", ")}"` };
  const header = records[headerAt]!.record.map((f) => f.trim().toLowerCase());
  const col = (name: string) => header.indexOf(name.toLowerCase());
  const at = { first: col("First Name"), last: col("Last Name"), url: col("URL"), email: col("Email Address"), company: col("Company"), position: col("Position") };
  const data = records.slice(headerAt + 1);
  if (data.length > MAX_ROWS) return { ok: false, reason: "too_many_rows", message: `at most ${MAX_ROWS} contacts per import (this file has ${data.length}); split the file` };

  const contacts: LinkedInContact[] = [];
  const skipped: Array<{ row: number; reason: string }> = [];
  const seen = new Map<string, number>();
  for (const r of data) {
    const row = startLine(r);
    const field = (i: number) => (r.record[i] ?? "").trim();
    const checked = contactOf(row, { first: field(at.first), last: field(at.last), url: field(at.url), email: field(at.email), company: field(at.company), position: field(at.position) }, r.record);
    if (typeof checked === "string") {
      skipped.push({ row, reason: checked });
      continue;
    }
    const earlier = seen.get(checked.key) ?? (checked.emailKey ? seen.get(checked.emailKey) : undefined);
    if (earlier !== undefined) {
      skipped.push({ row, reason: `duplicate of row ${earlier}` });
      continue;
    }
    seen.set(checked.key, row);
    if (checked.emailKey) seen.set(checked.emailKey, row);
    contacts.push(checked);
  }
  return { ok: true, contacts, skipped, total: data.length };
}

function contactOf(row: number, f: Record<"first" | "last" | "url" | "email" | "company" | "position", string>, record: string[]): LinkedInContact | string {
  if (record.every((x) => x.trim() === "")) return "empty row";
  const displayName = [f.first, f.last].filter(Boolean).join(" ");
  if (!displayName) return "no First Name or Last Name";
  if (f.first.length > 100 || f.last.length > 100) return "First Name and Last Name: at most 100 characters each";
  if (f.company.length > 200) return "Company: at most 200 characters";
  if (f.position.length > 200) return "Position: at most 200 characters";
  let linkedinUrl: string | null = null;
  let urlKey: string | null = null;
  if (f.url) {
    const url = URL.canParse(f.url) && f.url.length <= 2048 ? new URL(f.url) : null;
    if (!url || (url.protocol !== "https:" && url.protocol !== "http:")) return "URL: not an http(s) link";
    const path = url.pathname.replace(/\/+$/, "");
    linkedinUrl = `https://${url.host.toLowerCase()}${path}`;
    urlKey = `linkedin:${url.host.toLowerCase().replace(/^www\./, "")}${decodeSafe(path).toLowerCase()}`;
  }
  let email: string | null = null;
  if (f.email) {
    if (f.email.length > 254 || !EMAIL.test(f.email)) return "Email Address: not an email address";
    email = f.email.toLowerCase();
  }
  const emailKey = email ? `email:${email}` : null;
  const key = urlKey ?? emailKey;
  if (!key) return "no URL or Email Address to recognise the contact by";
  return { row, key, emailKey, displayName, email, company: f.company || null, position: f.position || null, linkedinUrl };
}

/** The record's first line: where it ends, minus the line breaks inside it (leading blank lines excluded). */
function startLine(r: { info: { lines: number }; raw: string }): number {
  const body = r.raw.replace(/^\n+/, "").replace(/\n$/, "");
  return r.info.lines - (body.match(/\n/g)?.length ?? 0);
}

function decodeSafe(path: string): string {
  try {
    return decodeURIComponent(path);
  } catch {
    return path;
  }
}
