/**
 * The deterministic built-in behind drafts and summaries when no LLM is configured (or it fails):
 * per-intent reply templates that are always valid INK payloads, and an extractive summary that
 * quotes the thread. Pure.
 */
export interface DraftInput {
  intent: string;
  payload: Record<string, unknown>;
  senderName: string;
  ownerName: string;
}

export interface Draft {
  intent: string;
  payload: Record<string, unknown>;
  note: string;
}

export function builtinDraft(responseIntent: string, m: DraftInput): Draft {
  const first = m.senderName.split(/\s+/)[0] || m.senderName;
  switch (responseIntent) {
    case "ask_response": {
      const choices = Array.isArray(m.payload.choices) ? m.payload.choices : [];
      return {
        intent: responseIntent,
        payload: { answer: `Thanks for asking, ${first}. Let me get back to you on this shortly.`, ...(choices.length > 0 ? { choiceIndex: 0 } : {}) },
        note: choices.length > 0 ? "Template: write the real answer and pick the right choiceIndex before sending." : "Template: write the real answer before sending.",
      };
    }
    case "schedule_meeting_response": {
      const times = Array.isArray(m.payload.proposedTimes) ? m.payload.proposedTimes.filter((t): t is string => typeof t === "string") : [];
      return {
        intent: responseIntent,
        payload: { status: "accepted", ...(times[0] ? { confirmedTime: times[0] } : {}), note: `Looking forward to it, ${first}.` },
        note: "Template: accepts the first proposed time; check your calendar, or change status to countered with counterTimes.",
      };
    }
    case "intro_response":
      return { intent: responseIntent, payload: { status: "pending_target", note: `Thanks ${first}, I'll check with them and come back to you.` }, note: "Template: asks the target first; use forwarded or declined once you know." };
    case "opportunity_response":
      return { intent: responseIntent, payload: { status: "maybe_later", note: `Thanks for thinking of me, ${first}. Not right now, but please keep me in mind.` }, note: "Template: a polite 'maybe later'; change status to interested or not_interested." };
    case "connection_response":
      return { intent: responseIntent, payload: { status: "accepted", note: `Nice to connect, ${first}.` }, note: "Template: accepts the connection (your connected profile snapshot is attached when sent)." };
    default:
      return { intent: responseIntent, payload: {}, note: "No template for this intent." };
  }
}

export interface ThreadLine {
  at: number;
  inbound: boolean;
  intent: string;
  payload: Record<string, unknown>;
  status: string;
}

const KEYS = ["question", "answer", "topic", "title", "message", "context", "reason", "description", "purpose", "note", "target"];

/** Who said what, in order, quoting the main text of each message; ends with what is still open. */
export function extractiveSummary(peerName: string, lines: ThreadLine[]): string {
  if (lines.length === 0) return `No messages with ${peerName} in this thread.`;
  const day = (ms: number) => new Date(ms).toISOString().slice(0, 10);
  const head = `Thread with ${peerName}: ${lines.length} message${lines.length === 1 ? "" : "s"}, ${day(lines[0]!.at)} to ${day(lines.at(-1)!.at)}.`;
  const shown = lines.length > 12 ? [...lines.slice(0, 2), ...lines.slice(-10)] : lines;
  const body = shown.map((l) => `- ${day(l.at)} ${l.inbound ? `${peerName} → you` : `you → ${peerName}`}: ${l.intent.replace(/_/g, " ")}${describe(l.payload)}`);
  if (shown.length < lines.length) body.splice(2, 0, `- … ${lines.length - shown.length} earlier messages …`);
  const last = lines.at(-1)!;
  const open = last.inbound && !last.intent.endsWith("_response") && last.status !== "responded" ? `Open: ${peerName}'s last ${last.intent.replace(/_/g, " ")} has no answer yet.` : null;
  return [head, ...body, ...(open ? [open] : [])].join("\n");
}

function describe(payload: Record<string, unknown>): string {
  const status = typeof payload.status === "string" ? ` (${payload.status})` : "";
  for (const k of KEYS) {
    const v = payload[k];
    if (typeof v === "string" && v.trim()) return `${status}: "${clip(v.trim(), 200)}"`;
  }
  return status;
}

function clip(s: string, n: number): string {
  const flat = s.replace(/\s+/g, " ");
  return flat.length <= n ? flat : `${flat.slice(0, n - 1)}…`;
}
