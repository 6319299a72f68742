import { afterEach, describe, expect, test } from "bun:test";
import { transaction } from "../../src/db/client.ts";
import { endListing, saveListing, type ListingProfile } from "../../src/domain/discovery/internal/listings.ts";
import { encodeEd25519PublicKey } from "../../src/ink/index.ts";
import { bootTestApp, TEST_REMOTE_HEADER, type TestNode } from "../helpers/boot.ts";
import { json } from "../helpers/process.ts";

let node: TestNode;
afterEach(() => node?.close());

let ipCounter = 0;
/** A fresh client address per request, so the per-IP limit only bites where a test wants it. */
const get = (path: string, ip = `198.51.100.${(++ipCounter % 250) + 1}`) => node.request(path, { headers: { [TEST_REMOTE_HEADER]: ip } });
const results = async (path: string) => {
  const res = await get(path);
  expect(res.status).toBe(200);
  return (await json(res)).results as Array<Record<string, unknown>>;
};
const handles = async (path: string) => (await results(path)).map((r) => r.handle);

function agent(n: number): { agentId: string; principal: string } {
  const key = new Uint8Array(32).fill(n);
  key[0] = 200;
  const mb = encodeEd25519PublicKey(key);
  return { agentId: `svc:${mb}`, principal: `key:${mb}` };
}

function profile(p: Partial<ListingProfile> & { handle: string }): ListingProfile {
  return { displayName: p.handle, headline: "", bio: "", skills: [], interests: [], openTo: [], roles: [], tags: [], location: null, ...p };
}

/** Lists agents the way the app does (saveListing: the FTS triggers index them). */
function list(n: TestNode, entries: ListingProfile[], at = n.clock.now()): number[] {
  return transaction(n.db, (tx) =>
    entries.map((p, i) => {
      const a = agent(i + 1);
      return saveListing(tx, { principal: a.principal, agentId: a.agentId, cardUrl: `https://n${i}.example/ink/v1/${encodeURIComponent(a.agentId)}/agent.json`, source: "remote", profile: p }, at + i, null).id;
    }),
  );
}

const PEOPLE = [
  profile({ handle: "alice-chen", displayName: "Alice Chen", headline: "Staff engineer, distributed systems", skills: ["Rust", "Go", "Distributed Systems"], interests: ["climbing"], openTo: ["mentoring"], roles: ["engineer"], location: "Berlin, Germany" }),
  profile({ handle: "bob", displayName: "Bob Müller", headline: "Designer who codes", skills: ["Figma", "TypeScript"], interests: ["jazz", "Cycling"], openTo: ["freelance work", "mentoring"], roles: ["designer"], location: "München" }),
  profile({ handle: "carol", displayName: "Carol Alvarez", headline: "Product manager", skills: ["Product Management", "SQL"], interests: ["climbing", "chess"], openTo: ["hiring"], roles: ["product manager", "founder"], location: "Lisbon", tags: ["rust"] }),
  profile({ handle: "dave", displayName: "Dave Rustin", headline: "Rust and C++ embedded", skills: ["C++", "Embedded", "Rust"], interests: [], openTo: [], roles: ["engineer"], location: "Berlin" }),
  profile({ handle: "élodie", displayName: "Élodie Fabre", headline: "Café owner learning Python", skills: ["Café Management", "Python"], interests: ["cooking"], openTo: ["coffee chats"], roles: ["founder"], location: "Montréal" }),
];

describe("GET /discover", () => {
  test("finds listed agents by handle, name, headline and skill, with the SPEC's DiscoveryResult fields", async () => {
    node = bootTestApp();
    list(node, PEOPLE);
    const [hit] = await results("/discover?q=alice");
    expect(hit).toEqual({
      agentId: agent(1).agentId, handle: "alice-chen", displayName: "Alice Chen", bio: "", skills: ["Rust", "Go", "Distributed Systems"], interests: ["climbing"],
      headline: "Staff engineer, distributed systems", openTo: ["mentoring"], tags: [], roles: ["engineer"], location: "Berlin, Germany",
      cardUrl: `https://n0.example/ink/v1/${encodeURIComponent(agent(1).agentId)}/agent.json`, source: "remote",
    });
    expect(await handles("/discover?q=designer")).toEqual(["bob"]);
    expect(await handles("/discover?q=distributed systems")).toEqual(["alice-chen"]);
    expect((await handles("/discover?q=sql"))).toEqual(["carol"]);
  });

  test("prefix matching on handles and names; words are case- and accent-insensitive", async () => {
    node = bootTestApp();
    list(node, PEOPLE);
    expect(await handles("/discover?q=al")).toEqual(expect.arrayContaining(["alice-chen", "carol"])); // Alice, Alvarez
    expect(await handles("/discover?q=ali")).toEqual(["alice-chen"]);
    expect(await handles("/discover?q=ELODIE")).toEqual(["élodie"]);
    expect(await handles("/discover?q=cafe")).toEqual(["élodie"]);
    expect(await handles("/discover?q=muller")).toEqual(["bob"]);
    expect(await handles("/discover?q=alice%20staff")).toEqual(["alice-chen"]); // every word must match
    expect(await handles("/discover?q=alice%20designer")).toEqual([]);
  });

  test("ranked by relevance: a handle or name match outranks a skill match", async () => {
    node = bootTestApp();
    list(node, PEOPLE);
    // "rust": Dave Rustin (name prefix + headline + skill) first, then the skill and tag matches.
    const ranked = await handles("/discover?q=rust");
    expect(ranked[0]).toBe("dave");
    expect(ranked.sort()).toEqual(["alice-chen", "carol", "dave"]);
  });

  test("filters: skills, interests, openTo and roles exact (all values, case- and accent-insensitive; tags count as skills), location by words", async () => {
    node = bootTestApp();
    list(node, PEOPLE);
    expect((await handles("/discover?q=engineer&skills=rust")).sort()).toEqual(["alice-chen", "dave"]);
    expect(await handles("/discover?q=engineer&skills=RUST,go")).toEqual(["alice-chen"]);
    expect(await handles("/discover?q=engineer&skills=rus")).toEqual([]); // exact value, not a prefix
    expect(await handles("/discover?q=carol&skills=rust")).toEqual(["carol"]); // a discovery tag counts as a skill
    expect(await handles("/discover?q=manager&skills=product%20management")).toEqual(["carol"]);
    expect(await handles("/discover?q=engineer&skills=c")).toEqual([]); // Dave's skill is c++, not c
    expect(await handles("/discover?q=dave&skills=c%2B%2B")).toEqual(["dave"]);
    expect(await handles("/discover?q=designer&interests=cycling")).toEqual(["bob"]);
    expect(await handles("/discover?q=designer&interests=climbing")).toEqual([]);
    expect((await handles("/discover?q=mentoring&openTo=mentoring")).sort()).toEqual(["alice-chen", "bob"]);
    expect(await handles("/discover?q=python&openTo=coffee%20chats&roles=founder")).toEqual(["élodie"]);
    expect(await handles("/discover?q=cafe&skills=cafe%20management")).toEqual(["élodie"]);
    expect(await handles("/discover?q=carol&roles=founder,product%20manager")).toEqual(["carol"]);
    expect((await handles("/discover?q=engineer&location=berlin")).sort()).toEqual(["alice-chen", "dave"]);
    expect(await handles("/discover?q=engineer&location=berlin%20germany")).toEqual(["alice-chen"]);
    expect(await handles("/discover?q=bob&location=munchen")).toEqual(["bob"]);
  });

  test("limit: default 20, at most 50", async () => {
    node = bootTestApp();
    list(node, Array.from({ length: 60 }, (_, i) => profile({ handle: `dev${i}`, headline: "developer" })));
    expect(await results("/discover?q=developer")).toHaveLength(20);
    expect(await results("/discover?q=developer&limit=50")).toHaveLength(50);
    expect(await results("/discover?q=developer&limit=3")).toHaveLength(3);
  });

  test("delisted and dropped agents never appear; relisting brings them back", async () => {
    node = bootTestApp();
    const [alice, bob] = list(node, PEOPLE.slice(0, 2));
    transaction(node.db, (tx) => {
      endListing(tx, alice!, "delisted", node.clock.now());
      endListing(tx, bob!, "dropped", node.clock.now(), "gone");
    });
    expect(await results("/discover?q=alice")).toEqual([]);
    expect(await results("/discover?q=bob")).toEqual([]);
    expect(await results("/discover?q=mentoring")).toEqual([]);
    list(node, PEOPLE.slice(0, 1));
    expect(await handles("/discover?q=alice")).toEqual(["alice-chen"]);
    const fts = node.db.$client.query("SELECT count(*) AS n FROM directory_fts WHERE directory_fts MATCH 'mentoring'").get() as { n: number };
    expect(fts.n).toBe(1); // the index holds listed rows only
  });

  test("query syntax in user input is plain text, never an FTS5 expression", async () => {
    node = bootTestApp();
    list(node, PEOPLE);
    for (const q of ['"alice', "alice OR bob", "alice*", "NEAR(alice bob)", "handle:alice", "alice^", "-alice", "(alice", "alice AND", "{handle}:alice", "a\"b"]) {
      const res = await get(`/discover?q=${encodeURIComponent(q)}`);
      expect({ q, status: res.status }).toEqual({ q, status: 200 });
    }
    expect(await handles(`/discover?q=${encodeURIComponent("alice OR bob")}`)).toEqual([]); // "or" is a word: no profile has it
    expect(await handles(`/discover?q=${encodeURIComponent("handle:alice")}`)).toEqual([]); // the word "handle" is not in any profile
    expect(await handles(`/discover?skills=${encodeURIComponent('rust" OR "go')}&q=alice`)).toEqual([]);
  });

  test("invalid parameters answer 400 with a message that says what is wrong", async () => {
    node = bootTestApp();
    const cases: Array<[string, string]> = [
      ["/discover", "q is required"],
      ["/discover?q=a", "q: at least 2 characters"],
      ["/discover?q=" + "x".repeat(201), "q: at most 200 characters"],
      ["/discover?q=!!", "q: needs at least one word"],
      ["/discover?q=a b c d e f g h i", "q: at most 8 words"],
      ["/discover?q=ok&limit=0", "limit: at least 1"],
      ["/discover?q=ok&limit=51", "limit: at most 50"],
      ["/discover?q=ok&limit=ten", "limit: an integer from 1 to 50"],
      ["/discover?q=ok&limit=-1", "limit: an integer from 1 to 50"],
      ["/discover?q=ok&skills=" + Array.from({ length: 11 }, (_, i) => `s${i}`).join(","), "skills: at most 10"],
      ["/discover?q=ok&interests=" + "x".repeat(101), "interests: each value at most 100"],
      ["/discover?q=ok&openTo=,,", "openTo: lists no value"],
      ["/discover?q=ok&roles=" + "r".repeat(2001), "roles: too long"],
      ["/discover?q=ok&location=%20%2C", "location: needs at least one word"],
    ];
    for (const [path, message] of cases) {
      const res = await get(path);
      const body = await json(res);
      expect({ path, status: res.status, error: body.error }).toEqual({ path, status: 400, error: "invalid_input" });
      expect(body.message).toContain(message);
    }
  });

  test("30 requests per minute per IP, then 429 with Retry-After (invalid requests count too)", async () => {
    node = bootTestApp();
    list(node, PEOPLE);
    for (let i = 0; i < 29; i++) expect((await get("/discover?q=alice", "203.0.113.9")).status).toBe(200);
    expect((await get("/discover?q=a", "203.0.113.9")).status).toBe(400);
    const limited = await get("/discover?q=alice", "203.0.113.9");
    expect(limited.status).toBe(429);
    expect(Number(limited.headers.get("retry-after"))).toBeGreaterThan(0);
    expect(await json(limited)).toMatchObject({ error: "rate_limited" });
    expect((await get("/discover?q=alice", "203.0.113.10")).status).toBe(200); // another client is not affected
    node.clock.advance(60_000);
    expect((await get("/discover?q=alice", "203.0.113.9")).status).toBe(200);
  });

  test("no authentication needed; the OpenAPI document describes the parameters", async () => {
    node = bootTestApp();
    const doc = await json(await node.request("/.well-known/openapi.json"));
    const op = doc.paths["/discover"].get;
    expect(op.security).toBeUndefined();
    expect(op.parameters.map((p: { name: string }) => p.name).sort()).toEqual(["interests", "limit", "location", "openTo", "q", "roles", "skills"]);
    expect(op.responses["429"]).toBeDefined();
    expect(Object.keys(op.responses["200"].content["application/json"].schema.properties.results.items.properties)).toEqual(
      expect.arrayContaining(["agentId", "handle", "displayName", "bio", "skills", "interests", "headline", "openTo"]),
    );
  });
});

describe("GET /{handle} resolves listed handles", () => {
  test("a listed agent's handle; the own agent wins; the oldest listing wins a collision; delisted ones are gone", async () => {
    node = bootTestApp();
    const [first] = list(node, [profile({ handle: "Zed" })], node.clock.now());
    transaction(node.db, (tx) => {
      saveListing(tx, { principal: agent(9).principal, agentId: agent(9).agentId, cardUrl: "https://other.example/ink/v1/x/agent.json", source: "remote", profile: profile({ handle: "zed" }) }, node.clock.now() + 1000, null);
      saveListing(tx, { principal: agent(8).principal, agentId: agent(8).agentId, cardUrl: "https://other.example/ink/v1/y/agent.json", source: "remote", profile: profile({ handle: "alice" }) }, node.clock.now(), null);
    });
    expect(await json(await get("/zed"))).toEqual({ found: true, agentId: agent(1).agentId, handle: "Zed" });
    expect(await json(await get("/alice"))).toEqual({ found: true, agentId: node.agentId, handle: "alice" });
    transaction(node.db, (tx) => void endListing(tx, first!, "delisted", node.clock.now()));
    expect(await json(await get("/zed"))).toEqual({ found: true, agentId: agent(9).agentId, handle: "zed" });
    expect(await json(await get("/nobody"))).toEqual({ found: false, agentId: null, handle: "nobody" });
  });
});
