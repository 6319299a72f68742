/**
 * Form fields of each INK intent payload (INK §3.3), for the send and reply forms. This is only
 * presentation: the node validates every payload against INK's strict schema and its message is
 * shown when something is off, so the console carries no copy of the rules.
 */
export interface FieldSpec {
  name: string;
  label: string;
  kind: "text" | "textarea" | "choice" | "times" | "list" | "datetime" | "number" | "url";
  options?: ReadonlyArray<readonly [string, string]>;
  required?: boolean;
  hint?: string;
  /** A fixed value the form does not ask for. */
  fixed?: string;
}

const urgency = [["low", "Low"], ["normal", "Normal"], ["urgent", "Urgent"]] as const;
const note: FieldSpec = { name: "note", label: "Note", kind: "textarea" };

export const INTENT_FORMS: Record<string, FieldSpec[]> = {
  ask: [
    { name: "question", label: "Question", kind: "textarea", required: true },
    { name: "context", label: "Context", kind: "textarea" },
    { name: "choices", label: "Choices", kind: "list", hint: "Optional, separated by commas: the answer picks one." },
    { name: "deadline", label: "Answer by", kind: "datetime" },
  ],
  ping: [{ name: "note", label: "Note", kind: "text" }],
  follow_up: [
    { name: "referenceId", label: "About message (id)", kind: "text", required: true },
    { name: "message", label: "Message", kind: "textarea", required: true },
    { name: "actionRequested", label: "Action requested", kind: "choice", options: [["", "None given"], ["reply", "Reply"], ["schedule", "Schedule"], ["review", "Review"], ["none", "No action"]] },
  ],
  schedule_meeting: [
    { name: "topic", label: "Topic", kind: "text", required: true },
    { name: "proposedTimes", label: "Proposed times", kind: "times", required: true, hint: "One to ten times, in your time zone." },
    { name: "format", label: "Format", kind: "choice", required: true, options: [["video", "Video"], ["phone", "Phone"], ["in_person", "In person"], ["async", "Async"]] },
    { name: "urgency", label: "Urgency", kind: "choice", required: true, options: urgency },
    { name: "location", label: "Location", kind: "text" },
    { name: "context", label: "Context", kind: "textarea" },
  ],
  intro_request: [
    { name: "target", label: "Who to meet (agent id or name)", kind: "text", required: true },
    { name: "reason", label: "Why", kind: "textarea", required: true },
    { name: "context", label: "Context", kind: "textarea" },
    { name: "urgency", label: "Urgency", kind: "choice", required: true, options: [["low", "Low"], ["normal", "Normal"]] },
  ],
  opportunity: [
    { name: "type", label: "Kind", kind: "choice", required: true, options: [["role", "Role"], ["investment", "Investment"], ["collaboration", "Collaboration"], ["advisory", "Advisory"], ["event", "Event"], ["other", "Other"]] },
    { name: "title", label: "Title", kind: "text", required: true },
    { name: "org", label: "Organisation", kind: "text" },
    { name: "description", label: "Description", kind: "textarea", required: true },
    { name: "matchReason", label: "Why them", kind: "textarea", required: true },
    { name: "url", label: "Link", kind: "url" },
  ],
  context_share: [
    { name: "context", label: "What to share", kind: "textarea", required: true },
    { name: "category", label: "Category", kind: "choice", required: true, options: [["general", "General"], ["project_update", "Project update"], ["professional_background", "Background"], ["expertise", "Expertise"], ["availability", "Availability"]] },
  ],
  multi_party_sync: [
    { name: "enclaveType", label: "Kind", kind: "text", fixed: "meeting_sync" },
    { name: "purpose", label: "Purpose", kind: "text", required: true },
    { name: "participants", label: "Participants (agent ids)", kind: "list", required: true, hint: "At least two, separated by commas." },
    { name: "expiresAt", label: "Ends", kind: "datetime", required: true },
  ],
  ask_response: [{ name: "answer", label: "Answer", kind: "textarea", required: true }],
  schedule_meeting_response: [
    { name: "status", label: "Answer", kind: "choice", required: true, options: [["accepted", "Accept"], ["countered", "Propose other times"], ["declined", "Decline"]] },
    { name: "confirmedTime", label: "Confirmed time", kind: "datetime" },
    { name: "counterTimes", label: "Other times", kind: "times" },
    { name: "meetingLink", label: "Meeting link", kind: "url" },
    note,
  ],
  intro_response: [
    { name: "status", label: "Answer", kind: "choice", required: true, options: [["forwarded", "Forward the introduction"], ["pending_target", "Asking them first"], ["declined", "Decline"]] },
    note,
  ],
  opportunity_response: [
    { name: "status", label: "Answer", kind: "choice", required: true, options: [["interested", "Interested"], ["maybe_later", "Maybe later"], ["not_interested", "Not interested"]] },
    note,
  ],
  connection_response: [
    { name: "status", label: "Answer", kind: "choice", required: true, options: [["accepted", "Accept"], ["declined", "Decline"]] },
    note,
  ],
};

/** Intents the owner starts from the send screen, in the order offered. */
export const SENDABLE = ["ask", "ping", "schedule_meeting", "follow_up", "intro_request", "opportunity", "context_share", "multi_party_sync"] as const;

export type FormValues = Record<string, string | string[]>;

export function emptyValues(fields: FieldSpec[]): FormValues {
  return Object.fromEntries(fields.map((f) => [f.name, f.kind === "times" ? [""] : f.kind === "choice" && f.required ? (f.options?.[0]?.[0] ?? "") : (f.fixed ?? "")]));
}

/** Values of a payload (a draft) for the form: ISO times to local inputs, lists to text. */
export function valuesOf(fields: FieldSpec[], payload: Record<string, unknown>): FormValues {
  const out = emptyValues(fields);
  for (const f of fields) {
    const v = payload[f.name];
    if (v === undefined || v === null) continue;
    if (f.kind === "times") out[f.name] = Array.isArray(v) && v.length ? v.map((t) => toLocalInput(String(t))) : [""];
    else if (f.kind === "list") out[f.name] = Array.isArray(v) ? v.map(String).join(", ") : String(v);
    else if (f.kind === "datetime") out[f.name] = toLocalInput(String(v));
    else out[f.name] = String(v);
  }
  return out;
}

/** The payload the node expects: empty optional members left out, times as RFC 3339. */
export function payloadOf(fields: FieldSpec[], values: FormValues): Record<string, unknown> {
  const payload: Record<string, unknown> = {};
  for (const f of fields) {
    const v = values[f.name];
    if (f.kind === "times") {
      const times = (Array.isArray(v) ? v : []).filter(Boolean).map((t) => new Date(t).toISOString());
      if (times.length) payload[f.name] = times;
    } else if (f.kind === "list") {
      const list = String(v ?? "").split(",").map((s) => s.trim()).filter(Boolean);
      if (list.length) payload[f.name] = list;
    } else {
      const s = String(v ?? "").trim();
      if (!s) continue;
      payload[f.name] = f.kind === "datetime" ? new Date(s).toISOString() : f.kind === "number" ? Number(s) : s;
    }
  }
  return payload;
}

/** "2026-12-01T10:00:00Z" → "2026-12-01T11:00" in the browser's zone, for <input type=datetime-local>. */
function toLocalInput(iso: string): string {
  const d = new Date(iso);
  if (Number.isNaN(d.getTime())) return "";
  const pad = (n: number) => String(n).padStart(2, "0");
  return `${d.getFullYear()}-${pad(d.getMonth() + 1)}-${pad(d.getDate())}T${pad(d.getHours())}:${pad(d.getMinutes())}`;
}
