/** Plain-language labels for what the node says in codes. */
export const INTENT_LABELS: Record<string, string> = {
  schedule_meeting: "Meeting request",
  schedule_meeting_response: "Meeting answer",
  intro_request: "Introduction request",
  intro_response: "Introduction answer",
  ask: "Question",
  ask_response: "Answer",
  follow_up: "Follow-up",
  context_share: "Shared context",
  connection_request: "Connection request",
  connection_response: "Connection answer",
  opportunity: "Opportunity",
  opportunity_response: "Opportunity answer",
  multi_party_sync: "Group sync",
  ping: "Ping",
  retract: "Retraction",
};

export const intentLabel = (intent: string) => INTENT_LABELS[intent] ?? intent;

export const LAYERS = ["inner", "active", "sympathy", "recognition", "known"] as const;
export const LAYER_LABELS: Record<string, string> = { inner: "Inner circle", active: "Active", sympathy: "Sympathy", recognition: "Recognition", known: "Known" };
export const HEALTH_LABELS: Record<string, string> = { strong: "Strong", healthy: "Healthy", cooling: "Cooling", at_risk: "At risk", dormant: "Dormant" };

/** "just now", "5 min ago", "3 h ago", "2 Mar" — with the exact time in a title. */
export function ago(iso: string | null | undefined, now = Date.now()): string {
  if (!iso) return "—";
  const t = Date.parse(iso);
  if (Number.isNaN(t)) return iso;
  const s = Math.round((now - t) / 1000);
  const future = s < 0;
  const a = Math.abs(s);
  const say = (n: number, unit: string) => (future ? `in ${n} ${unit}` : `${n} ${unit} ago`);
  if (a < 45) return future ? "in a moment" : "just now";
  if (a < 3600) return say(Math.round(a / 60), "min");
  if (a < 86_400) return say(Math.round(a / 3600), "h");
  if (a < 7 * 86_400) return say(Math.round(a / 86_400), a < 1.5 * 86_400 ? "day" : "days");
  return new Date(t).toLocaleDateString(undefined, { day: "numeric", month: "short", year: new Date(t).getFullYear() === new Date(now).getFullYear() ? undefined : "numeric" });
}

export function exact(iso: string | null | undefined): string {
  return iso ? new Date(iso).toLocaleString() : "";
}

/** A short, readable form of an agent id: "svc:z6Mk…q3Xa". */
export function shortId(id: string | null | undefined): string {
  if (!id) return "unknown agent";
  return id.length > 24 ? `${id.slice(0, 12)}…${id.slice(-6)}` : id;
}

export function initials(name: string | null | undefined): string {
  const words = (name ?? "").trim().split(/\s+/).filter(Boolean);
  if (words.length === 0) return "?";
  return (words[0]![0]! + (words[1]?.[0] ?? "")).toUpperCase();
}

/** The one-line gist of a payload, for lists. */
export function gist(intent: string, payload: Record<string, unknown>): string {
  const pick = ["question", "answer", "topic", "message", "title", "context", "reason", "note", "purpose", "status"];
  for (const k of pick) {
    const v = payload[k];
    if (typeof v === "string" && v.trim()) return v;
  }
  return intentLabel(intent);
}

/** Comma-separated text ⇄ list, for list fields in forms. */
export const toList = (s: string) => s.split(",").map((x) => x.trim()).filter(Boolean);
export const fromList = (l: readonly string[] | undefined) => (l ?? []).join(", ");
