// Discovery search benchmark (issue 7): GET /discover latency (p50, p95, p99) over 1k, 10k and
// 100k listings of synthetic but realistic profiles (names, handles, headlines, skills, interests,
// openTo, roles, locations drawn with skewed frequencies, as real vocabularies are), queried with
// a mix of terms and filters. Listings are written with the app's own insert path (saveListing,
// the FTS triggers) in batched transactions into a migrated temp database; requests go through
// the real app in-process (`app.handle`, no socket: what is measured is routing, validation, the
// FTS5 query and serialization, not TCP/TLS). Each request gets its own client address so the
// 30/min per-IP limit never triggers. Baselines measured in the same run on the same database:
// GET /health through the same stack (routing + one trivial SELECT), and the search verb called
// directly (no HTTP). Usage: bun scripts/bench/discover.ts [sizes=1000,10000,100000] [requests=3000]
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { closeDatabase, openDatabase, transaction, type Db } from "../../src/db/client.ts";
import { migrate } from "../../src/db/migrate.ts";
import { createLogMailer } from "../../src/adapters/log-mailer.ts";
import type { Ctx, Logger } from "../../src/domain/context.ts";
import { saveListing, type ListingProfile } from "../../src/domain/discovery/internal/listings.ts";
import { DiscoverQuery, searchDirectory } from "../../src/domain/discovery/search-directory.ts";
import { createSequentialIds } from "../../src/ids.ts";
import { encodeEd25519PublicKey } from "../../src/ink/index.ts";
import { createKeyVault } from "../../src/adapters/key-vault.ts";
import { createNode } from "../../src/node/create-node.ts";
import * as v from "valibot";

const SIZES = (process.argv[2] ?? "1000,10000,100000").split(",").map(Number);
const REQUESTS = Number(process.argv[3] ?? 3000);
const WARMUP = 300;

// ── deterministic randomness and vocabularies ────────────────────────────────────────────────
let seed = 42;
const rand = () => ((seed = (seed * 1664525 + 1013904223) >>> 0) / 2 ** 32);
/** Zipf-ish pick: low indexes much more frequent, like real skill and city frequencies. */
const skewed = <T>(xs: readonly T[]) => xs[Math.min(xs.length - 1, Math.floor(xs.length * rand() ** 2.2))]!;
const pickN = <T>(xs: readonly T[], n: number) => [...new Set(Array.from({ length: n }, () => skewed(xs)))];

const FIRST = "Alice Bob Carol Dave Erin Frank Grace Heidi Ivan Judy Karl Liam Mia Noah Olivia Paul Quinn Rosa Sam Tara Uma Victor Wendy Xavier Yara Zoe Amir Bea Chen Diego Elif Farah Goran Hana Igor Jana Kenji Lena Marco Nadia Omar Priya Rafael Sofia Tomas Ulla Vera Wei Yusuf Zainab Anders Björn Céline Dario Émile Fatima Giulia Hugo Inès Jörg Kasia Léa Matteo Nour Oskar Pilar René Saoirse Théo Ugo Valentina William".split(" ");
const LAST = "Smith Müller García Rossi Dubois Kowalski Nguyen Kim Silva Andersson Novak Ivanova Papadopoulos Jensen Horvat Cohen Okafor Tanaka Haddad Fernández Schmidt Moreau Bianchi Nowak Costa Larsen Petrov Yilmaz Sato Khan Mendes Virtanen Dvořák O'Brien MacLeod Van Dijk De Vries Rahman Öztürk Wójcik".split(" ");
const SKILLS = "Python,JavaScript,TypeScript,Product Management,Machine Learning,Data Analysis,React,Go,Rust,Kubernetes,AWS,Design,UX Research,Marketing,Sales,Leadership,SQL,Java,C++,Swift,Kotlin,Figma,Copywriting,Public Speaking,Fundraising,Finance,Accounting,Legal,Recruiting,Operations,DevOps,Security,Distributed Systems,Databases,PostgreSQL,SQLite,Elixir,Ruby,Rails,Django,Node.js,GraphQL,Terraform,Linux,Embedded,Robotics,Computer Vision,NLP,Statistics,Economics,Biology,Chemistry,Physics,Photography,Video Editing,Music Production,Writing,Editing,Translation,Teaching,Coaching,Community Building,Event Planning,Negotiation,Strategy,Growth,SEO,Content Strategy,Brand Design,Illustration,3D Modeling,Game Design,Blockchain,Cryptography,Networking,Hardware,Electronics,Supply Chain,Logistics,Healthcare,Nursing,Research,Policy,Journalism,Podcasting,Customer Success,Support,Data Engineering,MLOps,Scala,Haskell,OCaml,Zig,WebAssembly,Accessibility,Localization,Technical Writing".split(",");
const INTERESTS = "climbing,cycling,running,chess,cooking,jazz,hiking,sailing,photography,poetry,board games,open source,gardening,yoga,travel,film,history,philosophy,astronomy,birdwatching,ceramics,surfing,skiing,football,basketball,tennis,reading,podcasts,volunteering,languages,coffee,wine,baking,knitting,woodworking,painting,dance,theatre,opera,meditation".split(",");
const OPEN_TO = "mentoring,hiring,freelance work,advising,co-founding,investing,speaking,collaboration,coffee chats,job offers,board roles,research partnerships,open source contributions,consulting,internships".split(",");
const ROLES = "engineer,designer,founder,product manager,researcher,investor,marketer,writer,teacher,consultant,data scientist,student,manager,recruiter,lawyer,doctor,artist,analyst,architect,operator".split(",");
const CITIES = "Berlin,London,Paris,New York,San Francisco,Amsterdam,Lisbon,Barcelona,Madrid,Stockholm,Copenhagen,Oslo,Helsinki,Warsaw,Prague,Vienna,Zurich,Munich,Hamburg,Milan,Rome,Dublin,Edinburgh,Toronto,Montreal,Vancouver,Seattle,Austin,Boston,Chicago,Denver,Mexico City,São Paulo,Buenos Aires,Bogotá,Lagos,Nairobi,Cape Town,Cairo,Istanbul,Tel Aviv,Dubai,Mumbai,Bangalore,Singapore,Tokyo,Seoul,Taipei,Sydney,Melbourne,Auckland,Zagreb,Ljubljana,Tallinn,Riga,Vilnius,Kraków,Gdańsk,Porto,Valencia,Lyon,Marseille,Bordeaux,Ghent,Utrecht,Rotterdam,Aarhus,Gothenburg,Bergen,Tampere".split(",");
const COUNTRY: Record<string, string> = {};
const HEAD_ADJ = "Senior,Staff,Lead,Principal,Freelance,Independent,Aspiring,Curious,Experienced,Junior".split(",");

function profile(i: number): ListingProfile {
  const first = skewed(FIRST);
  const last = skewed(LAST);
  const role = skewed(ROLES);
  const skills = pickN(SKILLS, 3 + Math.floor(rand() * 8));
  const city = skewed(CITIES);
  const handle = `${first}${i % 3 === 0 ? "-" + last : i.toString(36)}`.toLowerCase().normalize("NFKD").replace(/[^a-z0-9-]/g, "").slice(0, 32) || `agent${i}`;
  const headline = `${skewed(HEAD_ADJ)} ${role} working on ${skills[0]} and ${skills[1] ?? skewed(SKILLS)} in ${city}`;
  return {
    handle,
    displayName: `${first} ${last}`,
    headline,
    bio: headline,
    skills,
    interests: pickN(INTERESTS, 1 + Math.floor(rand() * 5)),
    openTo: pickN(OPEN_TO, Math.floor(rand() * 4)),
    roles: [role],
    tags: rand() < 0.5 ? pickN(SKILLS, 2).map((s) => s.toLowerCase()) : [],
    location: `${city}${COUNTRY[city] ?? ""}`,
  };
}

/** The query mix: common and rare words, name/handle prefixes, two-word queries, filters. */
function queries(): string[] {
  const qs: string[] = [];
  const enc = encodeURIComponent;
  for (let i = 0; i < 400; i++) {
    const r = rand();
    if (r < 0.2) qs.push(`q=${enc(skewed(SKILLS))}`);
    else if (r < 0.35) qs.push(`q=${enc(skewed(FIRST).slice(0, 2 + Math.floor(rand() * 3)).toLowerCase())}`);
    else if (r < 0.45) qs.push(`q=${enc(`${skewed(FIRST)} ${skewed(LAST)}`)}`);
    else if (r < 0.55) qs.push(`q=${enc(`${skewed(ROLES)} ${skewed(CITIES)}`)}`);
    else if (r < 0.65) qs.push(`q=${enc(skewed(ROLES))}&skills=${enc(skewed(SKILLS))}`);
    else if (r < 0.75) qs.push(`q=${enc(skewed(SKILLS))}&location=${enc(skewed(CITIES))}&limit=10`);
    else if (r < 0.82) qs.push(`q=${enc(skewed(INTERESTS))}&openTo=${enc(skewed(OPEN_TO))}`);
    else if (r < 0.88) qs.push(`q=${enc(skewed(SKILLS))}&skills=${enc(`${skewed(SKILLS)},${skewed(SKILLS)}`)}&roles=${enc(skewed(ROLES))}`);
    else if (r < 0.94) qs.push(`q=${enc(`${skewed(HEAD_ADJ)} ${skewed(ROLES)}`)}&limit=50`);
    else qs.push(`q=${enc(`zz${Math.floor(rand() * 1e6)}`)}`); // no hit
  }
  return qs;
}

const silent: Logger = { debug() {}, info() {}, warn() {}, error() {}, child: () => silent };

function fill(db: Db, n: number, from: number): void {
  const BATCH = 2_000;
  for (let start = from; start < n; start += BATCH) {
    transaction(db, (tx) => {
      for (let i = start; i < Math.min(n, start + BATCH); i++) {
        const key = new Uint8Array(32);
        new DataView(key.buffer).setUint32(0, i + 1);
        key[31] = 7;
        const agentId = `svc:${encodeEd25519PublicKey(key)}`;
        saveListing(tx, { principal: `key:${agentId.slice(4)}`, agentId, cardUrl: `https://n${i}.example/ink/v1/${encodeURIComponent(agentId)}/agent.json`, source: "remote", profile: profile(i) }, 1_700_000_000_000 + i, null);
      }
    });
  }
}

function stats(ms: number[]): { p50: number; p95: number; p99: number; mean: number } {
  const s = [...ms].sort((a, b) => a - b);
  const at = (p: number) => s[Math.min(s.length - 1, Math.floor(p * s.length))]!;
  return { p50: at(0.5), p95: at(0.95), p99: at(0.99), mean: s.reduce((a, b) => a + b, 0) / s.length };
}

const dir = mkdtempSync(join(tmpdir(), "kith-bench-discover-"));
try {
  const file = join(dir, "kith.db");
  const db = openDatabase(file);
  migrate(db.$client, { file, now: Date.now() });
  const clock = { now: () => Date.now() };
  const node = { publicUrl: "https://directory.example", wordmark: "svc" as const, version: "bench" };
  const vault = createKeyVault(join(dir, "agent-key.json"), null);
  let ip = 0;
  const { app } = createNode({
    db, clock, ids: createSequentialIds("B"), log: silent, node, vault, allowPrivatePeers: false,
    remoteAddress: (r) => r.headers.get("x-bench-ip"),
    auth: { secret: new Uint8Array(32), ownerEmail: null, mailer: createLogMailer(silent), redirectUris: [], google: null, apple: null, atproto: null },
  });
  const ctx: Ctx = { actor: { kind: "public", ip: null }, db, clock, ids: createSequentialIds("C"), log: silent };
  const get = async (path: string) => {
    ip++;
    const res = await app.handle(new Request(`http://localhost${path}`, { headers: { "x-bench-ip": `10.${(ip >> 16) & 255}.${(ip >> 8) & 255}.${ip & 255}` } }));
    if (res.status !== 200) throw new Error(`${path}: HTTP ${res.status} ${await res.text()}`);
    return res.text();
  };
  const mix = queries();
  console.log(`GET /discover, in-process app.handle, ${REQUESTS} requests per size (after ${WARMUP} warm-up), query mix of ${mix.length} distinct queries`);
  console.log(`Bun ${Bun.version}, SQLite ${(db.$client.query("select sqlite_version() v").get() as { v: string }).v}\n`);
  const rows: string[] = [];
  let filled = 0;
  let previous: number | null = null;
  for (const size of SIZES) {
    const t0 = performance.now();
    fill(db, size, filled);
    filled = size;
    db.$client.exec("PRAGMA optimize; INSERT INTO directory_fts(directory_fts) VALUES('optimize');");
    const buildS = (performance.now() - t0) / 1000;
    const time = async (fn: (i: number) => Promise<unknown> | unknown, n: number) => {
      for (let i = 0; i < WARMUP; i++) await fn(i);
      const ms: number[] = [];
      for (let i = 0; i < n; i++) {
        const s = performance.now();
        await fn(i);
        ms.push(performance.now() - s);
      }
      return stats(ms);
    };
    let hits = 0;
    const discover = await time(async (i) => {
      const body = await get(`/discover?${mix[i % mix.length]}`);
      if (body.length > 20) hits++;
    }, REQUESTS);
    const health = await time(() => get("/health"), REQUESTS);
    const parsed = mix.map((q) => v.parse(DiscoverQuery, Object.fromEntries(new URLSearchParams(q))));
    const direct = await time((i) => searchDirectory(ctx, parsed[i % parsed.length]!), REQUESTS);
    const f = (x: number) => x.toFixed(2).padStart(6);
    rows.push(
      `| ${String(size).padStart(7)} | ${f(discover.p50)} | ${f(discover.p95)} | ${f(discover.p99)} | ${f(direct.p50)} | ${f(direct.p95)} | ${f(health.p50)} | ${f(health.p95)} | ${(discover.p95 / health.p95).toFixed(1).padStart(5)}× | ${previous === null ? "    —" : `${(discover.p95 / previous).toFixed(2)}×`} | ${buildS.toFixed(1).padStart(5)} s | ${Math.round((100 * hits) / (REQUESTS + WARMUP))}% |`,
    );
    previous = discover.p95;
    console.log(`${size} listings done`);
  }
  console.log("\nLatency in ms. direct = searchDirectory() without HTTP; health = GET /health through the same app.");
  console.log("| listings | /discover p50 | p95 | p99 | direct p50 | direct p95 | /health p50 | /health p95 | p95 vs /health | p95 growth | build | with results |");
  console.log("|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|");
  for (const r of rows) console.log(r);
  closeDatabase(db);
} finally {
  rmSync(dir, { recursive: true, force: true });
}
