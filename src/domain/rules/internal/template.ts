import { valueAt } from "./match.ts";

/**
 * Reply templates of `auto_respond` rules: a payload of the matching `_response` whose strings
 * may hold placeholders — {{sender.displayName}}, {{sender.handle}}, {{sender.agentId}},
 * {{owner.displayName}}, {{owner.handle}}, {{message.intent}}, {{message.id}} and
 * {{payload.<path>}} (a member of the message's payload). Pure.
 */
export interface TemplateContext {
  sender: { agentId: string; handle: string | null; displayName: string | null };
  owner: { displayName: string; handle: string };
  message: { intent: string; id: string };
  payload: Record<string, unknown>;
}

const PLACEHOLDER = /\{\{\s*([A-Za-z][A-Za-z0-9_.]{0,200})\s*\}\}/g;
const FIXED = new Set(["sender.displayName", "sender.handle", "sender.agentId", "owner.displayName", "owner.handle", "message.intent", "message.id"]);

/** Placeholders a template uses that are not known (empty when all are fine). */
export function unknownPlaceholders(template: unknown): string[] {
  const bad: string[] = [];
  walkStrings(template, (s) => {
    for (const m of s.matchAll(PLACEHOLDER)) {
      const name = m[1]!;
      if (!FIXED.has(name) && !/^payload\.[A-Za-z_][A-Za-z0-9_]*(\.[A-Za-z_][A-Za-z0-9_]*){0,4}$/.test(name)) bad.push(name);
    }
    return s;
  });
  return bad;
}

/** The template with every placeholder replaced (missing values become ""). */
export function renderTemplate(template: Record<string, unknown>, ctx: TemplateContext): Record<string, unknown> {
  return walkStrings(template, (s) => s.replace(PLACEHOLDER, (_all, name: string) => text(lookup(name, ctx)))) as Record<string, unknown>;
}

function lookup(name: string, ctx: TemplateContext): unknown {
  if (name.startsWith("payload.")) return valueAt(ctx.payload, name.slice("payload.".length));
  const [root, key] = name.split(".") as [keyof Omit<TemplateContext, "payload">, string];
  const scope = ctx[root] as Record<string, unknown> | undefined;
  if (root === "sender" && key === "displayName") return ctx.sender.displayName ?? ctx.sender.handle ?? ctx.sender.agentId;
  return scope?.[key];
}

function text(v: unknown): string {
  if (typeof v === "string") return v;
  if (typeof v === "number" || typeof v === "boolean") return String(v);
  return "";
}

function walkStrings(v: unknown, f: (s: string) => string, depth = 0): unknown {
  if (depth > 8) return v;
  if (typeof v === "string") return f(v);
  if (Array.isArray(v)) return v.map((x) => walkStrings(x, f, depth + 1));
  if (v && typeof v === "object") return Object.fromEntries(Object.entries(v).map(([k, x]) => [k, walkStrings(x, f, depth + 1)]));
  return v;
}

/** The declining `_response` payload of an intent, or null when its response has no declining status. */
export function declinePayload(intent: string, note?: string): Record<string, unknown> | null {
  const status: Record<string, string> = { schedule_meeting: "declined", intro_request: "declined", opportunity: "not_interested" };
  const s = status[intent];
  if (!s) return null;
  return note ? { status: s, note } : { status: s };
}
