// inbound.ts's side of turn-probe-preload.ts (KITH_BENCH_PRELOAD=1): the node is started with the
// preload, asked for its totals (SIGUSR2) at the edges of both measured windows, and the
// differences are printed per request. Kept apart so the bench itself carries only the calls.

type Dump = { main: number; totals: Record<string, { us: number; n: number }> };

/** Null unless KITH_BENCH_PRELOAD is set; `file` is where the node appends its dumps. */
export function turnProbe(file: string) {
  if (!process.env.KITH_BENCH_PRELOAD) return null;
  const lines = () => Bun.file(file).text().then((t) => t.split("\n").length, () => 1);
  return {
    /** bun's arguments before the node's entry point. */
    args: ["--preload", new URL("./turn-probe-preload.ts", import.meta.url).pathname],
    env: { KITH_TURN_OUT: file },
    /** One dump now (waits until the node has written it, 0.5 s at most). */
    async mark(node: { kill(signal: "SIGUSR2"): void }) {
      const before = await lines();
      node.kill("SIGUSR2");
      for (let i = 0; i < 100 && (await lines()) === before; i++) await Bun.sleep(5);
    },
    /** From the four dumps: the main thread's CPU per request in each window and its part inside timer callbacks, by name. */
    async report(latencyRequests: number, saturationRequests: number): Promise<string> {
      const dumps = (await Bun.file(file).text()).trim().split("\n").map((l) => JSON.parse(l) as Dump);
      if (dumps.length < 4) return `n/a (${dumps.length} dumps)`;
      const line = (a: Dump, b: Dump, n: number) => {
        const parts = Object.entries(b.totals)
          .map(([name, t]) => ({ name, us: (t.us - (a.totals[name]?.us ?? 0)) / n, per: (t.n - (a.totals[name]?.n ?? 0)) / n }))
          .filter((p) => p.us >= 0.5)
          .sort((x, y) => y.us - x.us);
        return `main thread ${Math.round((b.main - a.main) / n)} µs per request, in timer callbacks: ${parts.map((p) => `${p.name.slice(0, 40)} ${p.us.toFixed(1)} (${p.per.toFixed(2)} calls)`).join(", ") || "none"}`;
      };
      return `at 1000/s ${line(dumps[0]!, dumps[1]!, latencyRequests)}\n                        at saturation ${line(dumps[2]!, dumps[3]!, saturationRequests)}`;
    },
  };
}
