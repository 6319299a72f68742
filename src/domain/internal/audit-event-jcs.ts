import { auditEventCanonical, type AuditEvent } from "../../ink/profiles.ts";

// What appendAuditEvent signs and chains (AUDIT §2): JCS of the event without `agentSignature`.
// Its events have one shape, so their members are written straight in JCS order (UTF-16 order of
// the names) instead of walked and sorted: ~4x cheaper, on every extension request and every
// inbound message. Anything outside the shape this writer knows goes to the generic JCS, so the
// output is the generic writer's byte for byte (test/unit/audit-event-jcs.test.ts compares them).

const NEEDS_ESCAPE = /["\\\u0000-\u001f]/;
/** Well inside JCS_LIMITS (nodes, depth, string units, output), so no bound can differ. */
const MAX_FAST_UNITS = 65_536;
const MAX_FAST_DATA_MEMBERS = 32;

/** JCS of `event` without `agentSignature`, or null when JCS refuses it (as auditEventCanonical). */
export function auditEventJcs(event: AuditEvent): string | null {
  return fixedShape(event) ?? auditEventCanonical(event);
}

/** The fast writer, or null for anything it does not handle (the caller falls back). */
function fixedShape(e: AuditEvent): string | null {
  // Exactly the members read below: an unknown one, or a known one present as `undefined` (which
  // JCS refuses), makes the count differ.
  let members = 0;
  for (const _ in e) members++;
  let expected = 7;
  if (e.signingKeyId !== undefined) expected++;
  if (e.messageId !== undefined) expected++;
  if (e.correlationId !== undefined) expected++;
  if (e.counterpartyId !== undefined) expected++;
  if (e.data !== undefined) expected++;
  if (e.agentSignature !== undefined) expected++;
  if (members !== expected || !Number.isSafeInteger(e.sequence) || Object.is(e.sequence, -0)) return null;
  const w = { units: 0 };
  const agentId = str(w, e.agentId);
  const correlationId = e.correlationId === undefined ? "" : str(w, e.correlationId);
  const counterpartyId = e.counterpartyId === undefined ? "" : str(w, e.counterpartyId);
  const data = e.data === undefined ? "" : dataMember(w, e.data);
  const eventType = str(w, e.eventType);
  const id = str(w, e.id);
  const messageId = e.messageId === undefined ? "" : str(w, e.messageId);
  const previous = e.previousEventHash === null ? "null" : str(w, e.previousEventHash);
  const signingKeyId = e.signingKeyId === undefined ? "" : str(w, e.signingKeyId);
  const timestamp = str(w, e.timestamp);
  const version = str(w, e.version);
  if (agentId === null || correlationId === null || counterpartyId === null || data === null || eventType === null || id === null) return null;
  if (messageId === null || previous === null || signingKeyId === null || timestamp === null || version === null || w.units > MAX_FAST_UNITS) return null;
  return (
    `{"agentId":${agentId}` +
    (correlationId && `,"correlationId":${correlationId}`) +
    (counterpartyId && `,"counterpartyId":${counterpartyId}`) +
    data +
    `,"eventType":${eventType},"id":${id}` +
    (messageId && `,"messageId":${messageId}`) +
    `,"previousEventHash":${previous},"sequence":${e.sequence}` +
    (signingKeyId && `,"signingKeyId":${signingKeyId}`) +
    `,"timestamp":${timestamp},"version":${version}}`
  );
}

function str(w: { units: number }, value: unknown): string | null {
  if (typeof value !== "string" || !value.isWellFormed()) return null;
  w.units += value.length;
  return NEEDS_ESCAPE.test(value) ? JSON.stringify(value) : `"${value}"`;
}

/** `,"data":{…}` for a flat object of strings, booleans, null and safe integers; null otherwise. */
function dataMember(w: { units: number }, data: unknown): string | null {
  if (typeof data !== "object" || data === null || Array.isArray(data) || Object.getPrototypeOf(data) !== Object.prototype) return null;
  const keys = Object.keys(data).sort();
  if (keys.length > MAX_FAST_DATA_MEMBERS) return null;
  let out = "";
  for (const key of keys) {
    if (NEEDS_ESCAPE.test(key)) return null;
    const name = str(w, key);
    const value = scalar(w, (data as Record<string, unknown>)[key]);
    if (name === null || value === null) return null;
    out += `,${name}:${value}`;
  }
  return `,"data":{${out.slice(1)}}`;
}

function scalar(w: { units: number }, value: unknown): string | null {
  if (typeof value === "string") return str(w, value);
  if (typeof value === "boolean") return value ? "true" : "false";
  if (value === null) return "null";
  if (typeof value === "number" && Number.isSafeInteger(value) && !Object.is(value, -0)) return String(value);
  return null;
}
