import { transaction, type Db } from "../../src/db/client.ts";
import { connections, contactRelations, type DunbarLayer, type HealthBand } from "../../src/db/schema/index.ts";
import { seededRng } from "../../src/domain/network/internal/communities.ts";

/** One planted contact: which community, layer and band, and its company (the cluster label). */
export interface PlantedContact {
  id: string;
  community: number;
  layer: DunbarLayer;
  band: HealthBand;
  company: string;
}

export interface PlantedNetwork {
  contacts: PlantedContact[];
  /** Ties as contact-id pairs. */
  ties: Array<[string, string]>;
}

/**
 * A seeded synthetic network with planted communities: `k` communities of `size` contacts, each a
 * ring with random chords (dense inside, connected), layers and bands drawn from the seed. Ties
 * between communities are added by the caller (sole connectors, several connectors, pendants).
 */
export function plantCommunities(opts: { k: number; size: number; pIn?: number; seed?: number; prefix?: string }): PlantedNetwork {
  const rng = seededRng(opts.seed ?? 1);
  const layers: DunbarLayer[] = ["inner", "active", "sympathy", "recognition", "known"];
  const bands: HealthBand[] = ["strong", "healthy", "cooling", "at_risk", "dormant"];
  const contacts: PlantedContact[] = [];
  const ties: Array<[string, string]> = [];
  for (let c = 0; c < opts.k; c++) {
    const ids = Array.from({ length: opts.size }, (_, i) => `${opts.prefix ?? "p"}${String(c).padStart(2, "0")}-${String(i).padStart(3, "0")}`);
    for (const id of ids) contacts.push({ id, community: c, layer: layers[Math.floor(rng() * 5)]!, band: bands[Math.floor(rng() * 5)]!, company: `Company ${c}` });
    for (let i = 0; i < ids.length; i++) {
      ties.push([ids[i]!, ids[(i + 1) % ids.length]!]);
      for (let j = i + 2; j < ids.length; j++) if (rng() < (opts.pIn ?? 0.4) && !(i === 0 && j === ids.length - 1)) ties.push([ids[i]!, ids[j]!]);
    }
  }
  return { contacts, ties };
}

/** Writes the network into the node's database: contacts as imported connections, ties as stated relations. */
export function writeNetwork(db: Db, net: PlantedNetwork, at: number): void {
  transaction(db, (tx) => {
    for (const c of net.contacts) {
      tx.insert(connections)
        .values({ id: c.id, status: "contact", initiatedBy: "us", createdAt: at, updatedAt: at, layer: c.layer, health: c.band, displayName: `Contact ${c.id}`, company: c.company, source: "linkedin", lastMessageAt: at - 10 * 86_400_000 })
        .run();
    }
    let n = 0;
    for (const [a, b] of net.ties) {
      const [x, y] = a < b ? [a, b] : [b, a];
      tx.insert(contactRelations).values({ id: `rel-${++n}`, aId: x, bId: y, source: "import", weight: 1, createdAt: at }).onConflictDoNothing().run();
    }
  });
}

/** The network without `hidden` contacts and their ties. */
export function without(net: PlantedNetwork, hidden: ReadonlySet<string>): PlantedNetwork {
  return { contacts: net.contacts.filter((c) => !hidden.has(c.id)), ties: net.ties.filter(([a, b]) => !hidden.has(a) && !hidden.has(b)) };
}

/**
 * Six planted communities of 20 and planted ties between them:
 *   C0–C1 one tie (both ends sole connectors) · C1–C2 three ties between different contacts (no
 *   sole connector) · C2–C3 one C2 contact tied to three C3 contacts (sole on the C2 side only) ·
 *   C3–C4 one tie · C4–C0 three ties (closes a ring: no bridge edge so far) · C5 hangs off C4 by one
 *   tie (a bridge edge; both ends articulation points).
 */
export function plantedNetwork(): { net: PlantedNetwork; sole: Map<string, Array<[number, number, number]>>; cuts: string[] } {
  const net = plantCommunities({ k: 6, size: 20, seed: 11 });
  const m = (c: number, i: number) => `p${String(c).padStart(2, "0")}-${String(i).padStart(3, "0")}`;
  net.ties.push([m(0, 3), m(1, 4)]);
  net.ties.push([m(1, 7), m(2, 1)], [m(1, 8), m(2, 2)], [m(1, 9), m(2, 3)]);
  net.ties.push([m(2, 10), m(3, 1)], [m(2, 10), m(3, 2)], [m(2, 10), m(3, 3)]);
  net.ties.push([m(3, 12), m(4, 5)]);
  net.ties.push([m(4, 1), m(0, 11)], [m(4, 2), m(0, 12)], [m(4, 3), m(0, 13)]);
  net.ties.push([m(4, 15), m(5, 0)]);
  const sole = new Map<string, Array<[number, number, number]>>([
    [m(0, 3), [[0, 1, 1]]],
    [m(1, 4), [[1, 0, 1]]],
    [m(2, 10), [[2, 3, 3]]],
    [m(3, 12), [[3, 4, 1]]],
    [m(4, 5), [[4, 3, 1]]],
    [m(4, 15), [[4, 5, 1]]],
    [m(5, 0), [[5, 4, 1]]],
  ]);
  return { net, sole, cuts: [m(4, 15), m(5, 0)].sort() };
}

/**
 * The planted network plus hidden contacts placed where they would move visible numbers if the
 * filter leaked: a hidden second connector between C0 and C1 (the visible one then looks shared),
 * a hidden pendant on a visible contact (which would then be a cut), a hidden cluster of its own,
 * and every contact of the `inner` layer (about a fifth of each community).
 */
export function withHidden(): { net: PlantedNetwork; hidden: Set<string> } {
  const { net } = plantedNetwork();
  const add = (id: string, community: number) => net.contacts.push({ id, community, layer: "inner", band: "cooling", company: "Hidden Inc" });
  add("h-connector", 0);
  net.ties.push(["h-connector", "p00-001"], ["h-connector", "p00-002"], ["h-connector", "p01-010"]);
  add("h-pendant", 2);
  net.ties.push(["h-pendant", "p02-015"]);
  for (const id of ["h-c1", "h-c2", "h-c3", "h-c4"]) add(id, 9);
  net.ties.push(["h-c1", "h-c2"], ["h-c2", "h-c3"], ["h-c3", "h-c4"], ["h-c4", "h-c1"], ["h-c1", "h-c3"], ["h-c4", "p03-007"]);
  for (const c of net.contacts) if (c.id.startsWith("p") && c.id.endsWith("3")) c.layer = "inner"; // a few more, everywhere
  const hidden = new Set(net.contacts.filter((c) => c.layer === "inner").map((c) => c.id));
  return { net, hidden };
}
