// `bun run build`: the single-file kith binaries, dist/kith-linux-x64 and dist/kith-linux-arm64,
// and (for `all`) the release archives dist/kith-<version>-linux-<arch>.tar.gz with dist/SHA256SUMS.
// Usage: bun scripts/build.ts [x64|arm64|all]   (default all)
// Bun fetches the arm64 runtime as the npm package @oven/bun-linux-aarch64 (notes/STACK.md B.2).
import { chmodSync, copyFileSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { basename, join, resolve } from "node:path";
import { currentSnapshot, SNAPSHOT_FILE } from "./schema-snapshot.ts";

const ROOT = resolve(import.meta.dir, "..");
const TARGETS = { x64: "bun-linux-x64", arm64: "bun-linux-arm64" } as const;
type Arch = keyof typeof TARGETS;

/**
 * JavaScriptCore's tier-up thresholds are multiplied by this (`--compile-jit-policy`): a start,
 * and an idle node, compile nothing. `kith serve` sets the normal policy with its 64th request,
 * every other verb at once (src/cli/start-up.ts). inbound-performance.md, "Start-up (hx-snap)".
 */
export const START_JIT_POLICY = 1000;
/** The profile of which bytecode a start uses (scripts/bytecode-order.ts records it). */
export const BYTECODE_ORDER_FILE = join(ROOT, "scripts", "kith-serve.order.gz");

export async function buildBinary(arch: Arch, outDir = join(ROOT, "dist")): Promise<string> {
  // the binary embeds migrations/snapshot.sql; a stale one would be skipped at run time (every new
  // database would replay the migrations instead), so a build refuses it
  if (readFileSync(SNAPSHOT_FILE, "utf8") !== currentSnapshot()) {
    throw new Error("migrations/snapshot.sql is out of date: run `bun scripts/schema-snapshot.ts` and commit it");
  }
  mkdirSync(outDir, { recursive: true });
  const outfile = join(outDir, `kith-linux-${arch}`);
  const orders = mkdtempSync(join(tmpdir(), "kith-order-"));
  const order = existsSync(BYTECODE_ORDER_FILE) ? join(orders, "kith-serve.order") : null;
  if (order) writeFileSync(order, Bun.gunzipSync(readFileSync(BYTECODE_ORDER_FILE)));
  const args = [
    process.execPath, "build", "--compile", "--minify", "--sourcemap", "--bytecode", "--format=esm",
    // code splitting: what is imported on demand (the OpenAPI generator, the SMTP client and the
    // Node built-ins it pulls in) is evaluated on first use, not at every start (~10 ms, ~2 MiB)
    "--splitting",
    // a server must not pick up a stray .env or bunfig.toml from whatever directory it runs in
    "--no-compile-autoload-dotenv", "--no-compile-autoload-bunfig",
    // start-up (issue 18): the bytecode a start uses laid out together at the front of the binary,
    // so less of it is read and decoded (only the layout changes), and the start's run-once code
    // kept out of the JIT
    ...(order ? [`--bytecode-order=${order}`] : []),
    `--compile-jit-policy=${START_JIT_POLICY}`,
    // three Workers are second entry points, carried by the binary: the network analytics Worker at
    // node/network-worker (src/node/network-runner.ts finds it there; notes/EXTENSIONS.md §2.3), the
    // WAL checkpointer's at db/checkpoint-worker (src/db/checkpointer.ts) and the crypto batcher's
    // (every Ed25519 call that leaves the serving thread) at adapters/crypto-batch-worker (src/adapters/crypto-batch.ts)
    `--target=${TARGETS[arch]}`, join(ROOT, "src/main.ts"), join(ROOT, "src/node/network-worker.ts"),
    join(ROOT, "src/db/checkpoint-worker.ts"), join(ROOT, "src/adapters/crypto-batch-worker.ts"), "--outfile", outfile,
  ];
  try {
    const proc = Bun.spawn(args, { cwd: ROOT, stdout: "pipe", stderr: "pipe" });
    const [out, err, code] = await Promise.all([new Response(proc.stdout).text(), new Response(proc.stderr).text(), proc.exited]);
    if (code !== 0) throw new Error(`bun build (${arch}) failed:\n${out}${err}`);
    return outfile;
  } finally {
    rmSync(orders, { recursive: true, force: true });
  }
}

/**
 * One release archive per binary, `kith-<version>-linux-<arch>.tar.gz`, holding a directory of the
 * same name with `kith` (0755), README.md, kith.service and Containerfile; and SHA256SUMS over the
 * archives in `sha256sum -c` format. Entries are owned by root:root with a fixed mtime and sorted,
 * and gzip gets no name or time, so the same binaries give the same archives.
 */
export function packageRelease(binaries: Array<{ arch: Arch; file: string }>, version: string, outDir = join(ROOT, "dist")): string[] {
  const archives: string[] = [];
  for (const { arch, file } of binaries) {
    const name = `kith-${version}-linux-${arch}`;
    const stage = mkdtempSync(join(tmpdir(), "kith-release-"));
    try {
      const dir = join(stage, name);
      mkdirSync(dir);
      copyFileSync(file, join(dir, "kith"));
      chmodSync(join(dir, "kith"), 0o755);
      for (const extra of ["README.md", "scripts/kith.service", "Containerfile"]) {
        copyFileSync(join(ROOT, extra), join(dir, basename(extra)));
        chmodSync(join(dir, basename(extra)), 0o644);
      }
      const tar = Bun.spawnSync(["tar", "--sort=name", "--mtime=@0", "--owner=0", "--group=0", "--numeric-owner", "-cf", "-", name], { cwd: stage, stdout: "pipe", stderr: "pipe" });
      if (tar.exitCode !== 0) throw new Error(`tar failed: ${tar.stderr.toString()}`);
      const archive = join(outDir, `${name}.tar.gz`);
      writeFileSync(archive, Bun.gzipSync(new Uint8Array(tar.stdout), { level: 9 }));
      archives.push(archive);
    } finally {
      rmSync(stage, { recursive: true, force: true });
    }
  }
  const sums = archives.map((a) => `${new Bun.CryptoHasher("sha256").update(readFileSync(a)).digest("hex")}  ${basename(a)}`);
  writeFileSync(join(outDir, "SHA256SUMS"), sums.join("\n") + "\n");
  return archives;
}

if (import.meta.main) {
  const which = process.argv[2] ?? "all";
  const archs: Arch[] = which === "all" ? ["x64", "arm64"] : which === "x64" || which === "arm64" ? [which] : [];
  if (archs.length === 0) {
    console.error(`usage: bun scripts/build.ts [x64|arm64|all]`);
    process.exit(2);
  }
  const built: Array<{ arch: Arch; file: string }> = [];
  for (const arch of archs) {
    const file = await buildBinary(arch);
    built.push({ arch, file });
    console.log(`${file}  ${(statSync(file).size / 1024 / 1024).toFixed(1)} MiB`);
  }
  if (which === "all") {
    const version = (JSON.parse(readFileSync(join(ROOT, "package.json"), "utf8")) as { version: string }).version;
    for (const archive of packageRelease(built, version)) console.log(`${archive}  ${(statSync(archive).size / 1024 / 1024).toFixed(1)} MiB`);
    console.log(join(ROOT, "dist", "SHA256SUMS"));
  }
}
