// Compares two recordings of the suite's HTTP exchanges (test/helpers/exchange-log.ts):
//   KITH_RECORD_EXCHANGES=/tmp/a.jsonl bun test …   (before)
//   KITH_RECORD_EXCHANGES=/tmp/b.jsonl bun test …   (after)
//   bun scripts/exchange-diff.ts /tmp/a.jsonl /tmp/b.jsonl
// Prints how many tests and exchanges were compared and every exchange that differs. What is not
// deterministic between two runs of the same code is normalized first: the ports of test servers
// on loopback (`https://<name>.kith.test:<port>`, `127.0.0.1:<port>`), the node's random secrets
// (refresh tokens, emailed codes, OAuth states, PKCE challenges and nonces, ids of keys
// generated at run time), and whatever
// the `--ignore <regex>` options say (matched against the JSON of one exchange, replaced by "~").
// With `--noise <second recording of the same code as before>`, exchanges of `before` that the
// second recording does not reproduce are counted as not deterministic and left out.
import { readFileSync } from "node:fs";

const args = process.argv.slice(2);
const ignores: RegExp[] = [];
const files: string[] = [];
let noiseFile: string | null = null;
for (let i = 0; i < args.length; i++) {
  if (args[i] === "--ignore") ignores.push(new RegExp(args[++i]!, "g"));
  else if (args[i] === "--noise") noiseFile = args[++i]!;
  else files.push(args[i]!);
}
if (files.length !== 2) {
  console.error("usage: bun scripts/exchange-diff.ts [--ignore <regex>]… before.jsonl after.jsonl");
  process.exit(2);
}

type Line = { file: string; test: number; exchanges: string[] };

function load(path: string): Map<string, string[]> {
  const out = new Map<string, string[]>();
  for (const text of readFileSync(path, "utf8").split("\n")) {
    if (!text) continue;
    const line = JSON.parse(text) as Line;
    out.set(`${line.file} #${line.test}`, line.exchanges.map(normalize).sort());
  }
  return out;
}

function normalize(exchange: string): string {
  // base64 bodies are decoded where they are text, so the ports inside them normalize too
  const x = JSON.parse(exchange) as Record<string, unknown>;
  for (const k of ["requestBody", "responseBody"]) {
    const v = x[k];
    if (typeof v === "string" && !/ bytes, sha256 /.test(v)) x[k] = Buffer.from(v, "base64").toString("utf8");
  }
  let s = JSON.stringify(x)
    .replace(/(\.kith\.test)(:|%3A|%253A)\d{2,5}/g, "$1$2PORT")
    .replace(/(127\.0\.0\.1|localhost)(:|%3A|%253A)\d{2,5}/g, "$1$2PORT")
    .replace(/kith_rt_[A-Za-z0-9_-]{20,}/g, "kith_rt_~")
    .replace(/(\\"code\\":\\")\d{6,12}\\"/g, "$1~\\\"")
    .replace(/state-[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/g, "state-~")
    .replace(/\b(sig|enc)-\d{8}-[0-9a-f]{6}\b/g, "$1-~")
    .replace(/\b(code_challenge=|nonce=)[A-Za-z0-9_-]{16,}/g, "$1~");
  for (const r of ignores) s = s.replace(r, "~");
  return s;
}

const before = load(files[0]!);
const after = load(files[1]!);
const noise = noiseFile ? load(noiseFile) : null;
let compared = 0;
let differing = 0;
let unstable = 0;
for (const key of new Set([...before.keys(), ...after.keys()])) {
  let a = before.get(key) ?? [];
  let b = after.get(key) ?? [];
  if (noise) {
    const again = noise.get(key) ?? [];
    const flaky = new Set(a.filter((x) => !again.includes(x)));
    unstable += flaky.size;
    // an unstable exchange of `before` is matched by any one exchange of `after` that differs too
    a = a.filter((x) => !flaky.has(x));
    const extra = b.filter((x) => !a.includes(x));
    b = b.filter((x) => a.includes(x)).concat(extra.slice(flaky.size));
  }
  compared += Math.max(a.length, b.length);
  const onlyA = a.filter((x) => !b.includes(x));
  const onlyB = b.filter((x) => !a.includes(x));
  if (onlyA.length === 0 && onlyB.length === 0 && a.length === b.length) continue;
  differing += Math.max(onlyA.length, onlyB.length, 1);
  console.log(`\n== ${key}: ${a.length} before, ${b.length} after`);
  for (const x of onlyA) console.log(`- ${x.slice(0, 2000)}`);
  for (const x of onlyB) console.log(`+ ${x.slice(0, 2000)}`);
}
console.log(`\n${before.size} tests before, ${after.size} after; ${compared} exchanges compared; ${differing} differ${noise ? `; ${unstable} left out as not deterministic` : ""}`);
process.exit(differing > 0 ? 1 : 0);
