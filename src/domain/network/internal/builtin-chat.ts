import type { ChatContext } from "./chat-context.ts";

export type ChatTopic = "decaying" | "bridges" | "find_contact" | "unknown";

/**
 * The deterministic agent: recognises three questions (who is slipping away, who connects two
 * groups, find a contact) and answers them from the context alone; says plainly what it cannot.
 */
export function builtinChat(message: string, c: ChatContext): { topic: ChatTopic; reply: string } {
  const text = message.toLowerCase();
  if (/\b(decay|decaying|losing touch|lose touch|drift|slipping|neglect|catch up|haven'?t (talked|spoken)|out of touch|reconnect)/.test(text)) return { topic: "decaying", reply: decaying(c) };
  if (/\b(connect|connects|connector|bridge|bridges|link|links|between)\b/.test(text)) return { topic: "bridges", reply: bridges(text, c) };
  const find = /\b(?:find|who is|who's|look up|lookup|search(?: for)?|contact)\s+(.+)$/.exec(text);
  if (find) return { topic: "find_contact", reply: findContact(find[1]!, c) };
  return {
    topic: "unknown",
    reply:
      "I can answer three kinds of question here: who you are losing touch with, who connects two of your groups, and finding a contact by name or company. " +
      "I cannot answer anything else without a language model configured on this node.",
  };
}

const who = (x: { contactId: string; name: string | null }) => x.name ?? x.contactId;

function decaying(c: ChatContext): string {
  if (!c.decaying) return "This extension was not granted layers:read, so I cannot see relationship health.";
  if (c.decaying.length === 0) return "Nobody in the circles I can see is slipping away right now.";
  const top = c.decaying.slice(0, 5).map((d) => `${who(d)} (${d.layer}, ${d.band.replace("_", " ")}, ${d.daysSince} days since you last talked; usually every ${d.expectedCadenceDays})`);
  return `You are losing touch with: ${top.join("; ")}.`;
}

function bridges(text: string, c: ChatContext): string {
  if (!c.bridges) return "This extension was not granted graph:read:bridges, so I cannot see who connects your groups.";
  const named = (c.clusters ?? []).filter((k) => text.includes(k.label.toLowerCase()));
  let rows = c.bridges.filter((b) => b.between.length > 0);
  if (named.length >= 2) {
    const [x, y] = [named[0]!.label, named[1]!.label];
    rows = rows.filter((b) => b.between.some((l) => (l.from === x && l.to === y) || (l.from === y && l.to === x)));
    if (rows.length === 0) return `Nobody I can see is the only link between ${x} and ${y}.`;
    return `${rows.map(who).join(" and ")} ${rows.length === 1 ? "is" : "are"} the only link between ${x} and ${y}.`;
  }
  if (rows.length === 0) return "Nobody I can see is the only link between two of your groups.";
  const top = rows.slice(0, 5).map((b) => `${who(b)} (between ${b.between.map((l) => `${l.from} and ${l.to}`).join(", ")}${b.bridgeRisk ? "; this relationship is cooling" : ""})`);
  return `The people who alone connect your groups: ${top.join("; ")}.`;
}

function findContact(query: string, c: ChatContext): string {
  if (!c.contacts) return "This extension was not granted connections:list, so I cannot look contacts up.";
  const q = query.replace(/[?.!]+$/, "").trim();
  if (q.length < 2) return "Tell me at least two letters of the name or company to look for.";
  const hits = c.contacts.filter((x) => (x.name ?? "").toLowerCase().includes(q) || (x.company ?? "").toLowerCase().includes(q));
  if (hits.length === 0) return `I found nobody matching "${q}" in the circles I can see.`;
  return `Found ${hits.length}: ${hits.slice(0, 10).map((h) => `${who(h)} (${h.layer}${h.company ? `, ${h.company}` : ""})`).join("; ")}.`;
}
