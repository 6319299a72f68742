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
