// `bun run build`: the single-file kith binaries, dist/kith-linux-x64 and dist/kith-linux-arm64.
// Usage: bun scripts/build.ts [x64|arm64|all]   (default all)
// Bun fetches the arm64 runtime as the npm package @oven/bun-linux-aarch64 (notes/STACK.md B.2).
import { mkdirSync, statSync } from "node:fs";
import { join, resolve } from "node:path";

const ROOT = resolve(import.meta.dir, "..");
const TARGETS = { x64: "bun-linux-x64", arm64: "bun-linux-arm64" } as const;
type Arch = keyof typeof TARGETS;

export async function buildBinary(arch: Arch, outDir = join(ROOT, "dist")): Promise<string> {
  mkdirSync(outDir, { recursive: true });
  const outfile = join(outDir, `kith-linux-${arch}`);
  const args = [
    process.execPath, "build", "--compile", "--minify", "--sourcemap", "--bytecode", "--format=esm",
    // code splitting: what is imported on demand (the OpenAPI generator, the SMTP client and the
    // Node built-ins it pulls in) is evaluated on first use, not at every start (~10 ms, ~2 MiB)
    "--splitting",
    // a server must not pick up a stray .env or bunfig.toml from whatever directory it runs in
    "--no-compile-autoload-dotenv", "--no-compile-autoload-bunfig",
    // two Workers are second entry points, carried by the binary: the network analytics Worker at
    // node/network-worker (src/node/network-runner.ts finds it there; notes/EXTENSIONS.md §2.3) and
    // the verify pool's at adapters/verify-worker (src/adapters/verify-pool.ts)
    `--target=${TARGETS[arch]}`, join(ROOT, "src/main.ts"), join(ROOT, "src/node/network-worker.ts"), join(ROOT, "src/adapters/verify-worker.ts"), "--outfile", outfile,
  ];
  const proc = Bun.spawn(args, { cwd: ROOT, stdout: "pipe", stderr: "pipe" });
  const [out, err, code] = await Promise.all([new Response(proc.stdout).text(), new Response(proc.stderr).text(), proc.exited]);
  if (code !== 0) throw new Error(`bun build (${arch}) failed:\n${out}${err}`);
  return outfile;
}

if (import.meta.main) {
  const which = process.argv[2] ?? "all";
  const archs: Arch[] = which === "all" ? ["x64", "arm64"] : which === "x64" || which === "arm64" ? [which] : [];
  if (archs.length === 0) {
    console.error(`usage: bun scripts/build.ts [x64|arm64|all]`);
    process.exit(2);
  }
  for (const arch of archs) {
    const file = await buildBinary(arch);
    console.log(`${file}  ${(statSync(file).size / 1024 / 1024).toFixed(1)} MiB`);
  }
}
