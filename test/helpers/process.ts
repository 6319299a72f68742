import type { Subprocess } from "bun";
import { resolve } from "node:path";
import { testCa } from "./tls.ts";

export const ROOT = resolve(import.meta.dir, "../..");
export const MAIN = resolve(ROOT, "src/main.ts");

/** Environment for child processes: nothing from the developer's KITH_* settings leaks in. */
export function cleanEnv(extra: Record<string, string> = {}): Record<string, string> {
  const env: Record<string, string> = {};
  for (const [k, v] of Object.entries(process.env)) if (v !== undefined && !k.startsWith("KITH_")) env[k] = v;
  return { ...env, ...extra };
}

export interface RunResult {
  code: number;
  stdout: string;
  stderr: string;
}

/** Runs `kith <args>` (bun src/main.ts, or a compiled binary) to completion. */
export async function runKith(args: string[], options: { env?: Record<string, string>; cwd?: string; bin?: string[] } = {}): Promise<RunResult> {
  const proc = Bun.spawn([...(options.bin ?? [process.execPath, MAIN]), ...args], {
    cwd: options.cwd ?? ROOT,
    env: cleanEnv(options.env),
    stdin: "ignore",
    stdout: "pipe",
    stderr: "pipe",
  });
  const [stdout, stderr, code] = await Promise.all([new Response(proc.stdout).text(), new Response(proc.stderr).text(), proc.exited]);
  return { code, stdout, stderr };
}

export interface RunningNode {
  proc: Subprocess<"ignore", "pipe", "pipe">;
  port: number;
  url: string;
  stderr(): string;
  stdout(): string;
  stop(signal?: NodeJS.Signals): Promise<number>;
}

/** Starts `kith serve` on a free port and waits until /health answers 200. */
export async function startKith(args: string[], options: { env?: Record<string, string>; cwd?: string; bin?: string[]; timeoutMs?: number; ca?: string } = {}): Promise<RunningNode> {
  const proc = Bun.spawn([...(options.bin ?? [process.execPath, MAIN]), "serve", "--port", "0", ...args], {
    cwd: options.cwd ?? ROOT,
    env: cleanEnv(options.env),
    stdin: "ignore",
    stdout: "pipe",
    stderr: "pipe",
  });
  let out = "";
  let err = "";
  // Kept so stop() can wait until both pipes are drained: the exit code arrives before the last bytes.
  const drained = Promise.all([
    (async () => {
      for await (const chunk of proc.stdout) out += new TextDecoder().decode(chunk);
    })(),
    (async () => {
      for await (const chunk of proc.stderr) err += new TextDecoder().decode(chunk);
    })(),
  ]);
  const deadline = Date.now() + (options.timeoutMs ?? 15_000);
  let port = 0;
  let scheme = "http";
  while (Date.now() < deadline) {
    const m = err.match(/listening on (https?):\/\/[^\s]+:(\d+)/);
    if (m) {
      scheme = m[1]!;
      port = Number(m[2]);
      try {
        const res = await fetch(`${scheme}://127.0.0.1:${port}/health`, scheme === "https" ? ({ tls: { ca: options.ca ?? testCa() } } as RequestInit) : {});
        if (res.status === 200) break;
      } catch {
        // not yet
      }
    }
    if (proc.exitCode !== null) throw new Error(`kith serve exited with ${proc.exitCode}: ${err}`);
    await Bun.sleep(20);
  }
  if (!port) {
    proc.kill("SIGKILL");
    throw new Error(`kith serve did not start: ${err}`);
  }
  return {
    proc,
    port,
    url: `${scheme}://127.0.0.1:${port}`,
    stderr: () => err,
    stdout: () => out,
    async stop(signal = "SIGTERM") {
      if (proc.exitCode === null) proc.kill(signal);
      const code = await proc.exited;
      await drained;
      return code;
    },
  };
}

/** `Response.json()` is typed `unknown` by some lib combinations; tests read JSON through this. */
export async function json(res: Response): Promise<any> {
  return res.json();
}
