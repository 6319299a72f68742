import type { Db } from "../../db/client.ts";
import { normalizePrincipal } from "../../ink/index.ts";
import { TieCollector } from "./internal/tie-collector.ts";
import type { GraphInput } from "./internal/structure.ts";

const DAY = 86_400_000;
/** Evidence from messages fades with this time constant (docs/decisions/contact-graph.md). */
export const DECAY_DAYS = 180;
/** Ties lighter than this are dropped (≈ one piece of evidence 540 days old). */
export const MIN_WEIGHT = 0.05;
const HORIZON_MS = Math.ceil(DECAY_DAYS * Math.log(1 / MIN_WEIGHT)) * DAY;

const CONTACTS = "SELECT id, principal FROM connections WHERE status IN ('connected', 'contact') ORDER BY id";
const EVIDENCE = "SELECT peer_principal, intent, payload_json, received_at FROM messages WHERE intent IN ('intro_request', 'connection_request', 'multi_party_sync') AND received_at >= ?";
const RELATIONS = "SELECT a_id, b_id, weight FROM contact_relations";

/**
 * The contact graph as the database shows it at `now` (docs/decisions/contact-graph.md). Nodes:
 * contacts (connected or imported), never the owner. Ties: introductions (an `intro_request`'s
 * target with its peer, a connection request's `introducedBy` with its sender), the participants of
 * one `multi_party_sync`, and stated or imported relations. A message tie weighs
 * exp(−age / 180 d) per piece of evidence; a stated relation its own weight, without decay.
 * Rows are read as raw values (no object per row) from cached statements, and the evidence goes
 * into typed arrays (internal/tie-collector.ts): at 10k contacts / 100k ties this runs in the
 * Worker on every recompute.
 */
export function loadContactGraph(db: Db, now: number): GraphInput {
  const client = db.$client;
  const contacts = client.query(CONTACTS).values() as Array<[string, string | null]>;
  const n = contacts.length;
  const ids: string[] = new Array(n);
  const index = new Map<string, number>();
  const byPrincipal = new Map<string, number>();
  for (let i = 0; i < n; i++) {
    const [id, principal] = contacts[i]!;
    ids[i] = id;
    index.set(id, i);
    if (principal) byPrincipal.set(principal, i);
  }
  const ties = new TieCollector(n);
  const principalIndex = (agentId: unknown): number | undefined => {
    const r = normalizePrincipal(agentId);
    return r.ok ? byPrincipal.get(r.principal) : undefined;
  };

  for (const [peerPrincipal, intent, payload, at] of client.query(EVIDENCE).values(now - HORIZON_MS) as Array<[string, string, string, number]>) {
    const peer = byPrincipal.get(peerPrincipal);
    const w = Math.exp(-Math.max(0, now - at) / (DECAY_DAYS * DAY));
    const p = parsePayload(payload);
    if (intent === "intro_request") ties.add(peer, principalIndex(p.target), w);
    else if (intent === "connection_request") ties.add(peer, principalIndex(p.introducedBy), w);
    else if (Array.isArray(p.participants)) {
      const people = [...new Set([peer, ...p.participants.map(principalIndex)].filter((x): x is number => x !== undefined))];
      for (let i = 0; i < people.length; i++) for (let j = i + 1; j < people.length; j++) ties.add(people[i], people[j], w);
    }
  }
  for (const [a, b, w] of client.query(RELATIONS).values() as Array<[string, string, number]>) ties.add(index.get(a), index.get(b), w);
  return { ids, edges: ties.edges(MIN_WEIGHT) };
}

function parsePayload(json: string): Record<string, unknown> {
  try {
    const p = JSON.parse(json);
    return p && typeof p === "object" ? p : {};
  } catch {
    return {};
  }
}
