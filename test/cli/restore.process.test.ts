import { afterAll, describe, expect, setDefaultTimeout, test } from "bun:test";
import { createHash } from "node:crypto";
import { createWriteStream, existsSync, mkdtempSync, readdirSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Readable } from "node:stream";
import { pipeline } from "node:stream/promises";
import { createGzip } from "node:zlib";
import { tarHeader } from "../../src/cli/tar.ts";
import { MAIN, runKith } from "../helpers/process.ts";

// Spawns kith processes (or compiles the binary): a longer per-test timeout than the suite's 5 s.
setDefaultTimeout(60_000);

/**
 * `kith restore` against hostile archives: every byte it inflates is bounded by what the manifest
 * declares, and what the manifest may declare is bounded (expansion ratio, free space, the key
 * file's size). Each archive here is built by hand: a gzip bomb, lying tar headers, extra entries.
 */
const work = mkdtempSync(join(tmpdir(), "kith-restore-"));
afterAll(() => rmSync(work, { recursive: true, force: true }));
let n = 0;

type Entry = { name: string; size: number; content: () => AsyncIterable<Uint8Array> | Iterable<Uint8Array> };

const zeros = (bytes: number) =>
  function* () {
    const block = new Uint8Array(1 << 20);
    for (let left = bytes; left > 0; left -= block.length) yield left >= block.length ? block : block.subarray(0, left);
  };

async function archive(entries: Entry[]): Promise<string> {
  const file = join(work, `a${++n}.tar.gz`);
  async function* tar() {
    for (const e of entries) {
      yield tarHeader(e.name, e.size, 0);
      let written = 0;
      for await (const chunk of e.content()) {
        written += chunk.length;
        yield chunk;
      }
      const pad = (512 - (written % 512)) % 512;
      if (pad) yield new Uint8Array(pad);
    }
    yield new Uint8Array(1024);
  }
  await pipeline(Readable.from(tar()), createGzip({ level: 9 }), createWriteStream(file));
  return file;
}

function manifestEntry(files: Array<{ name: string; bytes: number; sha256: string }>): Entry {
  const text = new TextEncoder().encode(JSON.stringify({ format: "kith-backup/1", createdAt: new Date(0).toISOString(), kithVersion: "0.1.0", schemaVersion: 1, files }));
  return { name: "manifest.json", size: text.length, content: () => [text] };
}

const sha256Zeros = (bytes: number) => {
  const h = createHash("sha256");
  for (const chunk of zeros(bytes)()) h.update(chunk);
  return h.digest("hex");
};
const KEY = new TextEncoder().encode("{}");
const keyEntry: Entry = { name: "agent-key.json", size: KEY.length, content: () => [KEY] };
const keyListing = { name: "agent-key.json", bytes: KEY.length, sha256: createHash("sha256").update(KEY).digest("hex") };

/**
 * Restores under a 32 MiB cap on the size of any file the process writes (RLIMIT_FSIZE, when
 * prlimit is there): inflating a bomb to disk first kills the process with SIGXFSZ.
 */
const FSIZE_CAP = ["prlimit", `--fsize=${32 * 1024 * 1024}`, "--"];
const capped = Bun.which("prlimit") ? [...FSIZE_CAP, process.execPath, MAIN] : undefined;

async function restore(file: string) {
  const target = join(work, `t${++n}`);
  const r = await runKith(["restore", "--from", file, "--data-dir", target], capped ? { bin: capped } : {});
  return { ...r, target };
}

function expectNothingLeft(target: string) {
  expect(existsSync(target)).toBe(false);
  expect(readdirSync(work).filter((f) => f.includes(".restoring-"))).toEqual([]);
}

describe("kith restore bounds what it decompresses", () => {
  test("a gzip bomb (256 MiB of zeros in a ~250 KB archive, honestly declared) is refused before it is inflated", async () => {
    const size = 256 * 1024 * 1024;
    const file = await archive([manifestEntry([{ name: "kith.db", bytes: size, sha256: sha256Zeros(size) }, keyListing]), { name: "kith.db", size, content: zeros(size) }, keyEntry]);
    expect(statSync(file).size).toBeLessThan(1024 * 1024);
    const r = await restore(file);
    expect(r.code).toBe(1);
    expect(r.stderr.trim().split("\n")).toHaveLength(1);
    expect(r.stderr).toMatch(/refusing the backup: it declares 256\.0 MiB of content, more than 100x its compressed size/);
    expectNothingLeft(r.target);
  });

  test("a tar header larger than the manifest's size is refused before its content is read", async () => {
    const size = 200 * 1024 * 1024;
    const file = await archive([manifestEntry([{ name: "kith.db", bytes: 4096, sha256: sha256Zeros(4096) }, keyListing]), { name: "kith.db", size, content: zeros(size) }, keyEntry]);
    const r = await restore(file);
    expect(r.code).toBe(1);
    expect(r.stderr).toContain("backup is damaged: kith.db is not the size its manifest gives");
    expectNothingLeft(r.target);
  });

  test("entries the manifest does not list, a second copy of a file, a huge manifest and a huge key file are refused", async () => {
    const big = 100 * 1024 * 1024;
    const cases: Array<[Entry[], string]> = [
      [[manifestEntry([{ name: "kith.db", bytes: 4096, sha256: sha256Zeros(4096) }, keyListing]), { name: "extra.bin", size: big, content: zeros(big) }], "not a kith backup: unexpected file extra.bin"],
      [[manifestEntry([{ name: "kith.db", bytes: 4096, sha256: sha256Zeros(4096) }, keyListing]), keyEntry, { name: "agent-key.json", size: big, content: zeros(big) }], "not a kith backup: unexpected file agent-key.json"],
      [[{ name: "manifest.json", size: big, content: zeros(big) }], "not a kith backup: manifest too large"],
      [[manifestEntry([{ name: "kith.db", bytes: 4096, sha256: sha256Zeros(4096) }, { ...keyListing, bytes: 5 * 1024 * 1024 }])], "not a kith backup: the key file it declares is too large"],
      [[{ name: "kith.db", size: big, content: zeros(big) }], "not a kith backup: unexpected archive contents"],
    ];
    for (const [entries, message] of cases) {
      const r = await restore(await archive(entries));
      expect({ message, code: r.code, stderr: r.stderr.trim() }).toEqual({ message, code: 1, stderr: `kith restore: ${message}` });
      expectNothingLeft(r.target);
    }
  });

  test("a plain gzip bomb with no tar inside stops at the first block", async () => {
    const size = 512 * 1024 * 1024;
    const file = join(work, "zeros.gz");
    await pipeline(Readable.from(zeros(size)()), createGzip({ level: 9 }), createWriteStream(file));
    const r = await restore(file);
    expect(r.code).toBe(1);
    expect(r.stderr.trim()).toBe("kith restore: not a kith backup: unexpected archive contents");
    expectNothingLeft(r.target);
  });
});
