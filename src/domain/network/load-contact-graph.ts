import { sql } from "drizzle-orm";
import type { Db } from "../../db/client.ts";
import { normalizePrincipal } from "../../ink/index.ts";
import type { GraphInput } from "./internal/structure.ts";

const DAY = 86_400_000;
/** Evidence from messages fades with this time constant (docs/decisions/contact-graph.md). */
export const DECAY_DAYS = 180;
/** Ties lighter than this are dropped (≈ one piece of evidence 540 days old). */
export const MIN_WEIGHT = 0.05;
const HORIZON_MS = Math.ceil(DECAY_DAYS * Math.log(1 / MIN_WEIGHT)) * DAY;

/**
 * The contact graph as the database shows it at `now` (docs/decisions/contact-graph.md). Nodes:
 * contacts (connected or imported), never the owner. Ties: introductions (an `intro_request`'s
 * target with its peer, a connection request's `introducedBy` with its sender), the participants of
 * one `multi_party_sync`, and stated or imported relations. A message tie weighs
 * exp(−age / 180 d) per piece of evidence; a stated relation its own weight, without decay.
 */
export function loadContactGraph(db: Db, now: number): GraphInput {
  const contacts = db.all<{ id: string; principal: string | null }>(sql`SELECT id, principal FROM connections WHERE status IN ('connected', 'contact') ORDER BY id`);
  const ids = contacts.map((c) => c.id);
  const index = new Map<string, number>();
  const byPrincipal = new Map<string, number>();
  contacts.forEach((c, i) => {
    index.set(c.id, i);
    if (c.principal) byPrincipal.set(c.principal, i);
  });
  const weight = new Map<number, number>();
  const n = ids.length;
  const add = (u: number | undefined, v: number | undefined, w: number) => {
    if (u === undefined || v === undefined || u === v) return;
    const key = u < v ? u * n + v : v * n + u;
    weight.set(key, (weight.get(key) ?? 0) + w);
  };
  const principalIndex = (agentId: unknown): number | undefined => {
    const r = normalizePrincipal(agentId);
    return r.ok ? byPrincipal.get(r.principal) : undefined;
  };

  const evidence = db.all<{ peer: string; intent: string; payload: string; at: number }>(sql`
    SELECT peer_principal AS peer, intent, payload_json AS payload, received_at AS at FROM messages
    WHERE intent IN ('intro_request', 'connection_request', 'multi_party_sync') AND received_at >= ${now - HORIZON_MS}`);
  for (const e of evidence) {
    const peer = byPrincipal.get(e.peer);
    const w = Math.exp(-Math.max(0, now - e.at) / (DECAY_DAYS * DAY));
    const p = parsePayload(e.payload);
    if (e.intent === "intro_request") add(peer, principalIndex(p.target), w);
    else if (e.intent === "connection_request") add(peer, principalIndex(p.introducedBy), w);
    else if (Array.isArray(p.participants)) {
      const people = [...new Set([peer, ...p.participants.map(principalIndex)].filter((x): x is number => x !== undefined))];
      for (let i = 0; i < people.length; i++) for (let j = i + 1; j < people.length; j++) add(people[i], people[j], w);
    }
  }
  for (const r of db.all<{ a: string; b: string; w: number }>(sql`SELECT a_id AS a, b_id AS b, weight AS w FROM contact_relations`)) add(index.get(r.a), index.get(r.b), r.w);

  const keys = [...weight.keys()].filter((k) => weight.get(k)! >= MIN_WEIGHT).sort((x, y) => x - y);
  const a = new Int32Array(keys.length);
  const b = new Int32Array(keys.length);
  const w = new Float64Array(keys.length);
  keys.forEach((k, i) => {
    a[i] = Math.floor(k / n);
    b[i] = k % n;
    w[i] = weight.get(k)!;
  });
  return { ids, edges: { a, b, w } };
}

function parsePayload(json: string): Record<string, unknown> {
  try {
    const p = JSON.parse(json);
    return p && typeof p === "object" ? p : {};
  } catch {
    return {};
  }
}
