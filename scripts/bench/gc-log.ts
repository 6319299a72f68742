// KITH_BENCH_GC=1 (inbound.ts): the node runs with JSC's GC log (BUN_JSC_logGC=1) on its stderr,
// which this reads as it comes, stamping each line with the time it arrived. A collection's log
// has a START line naming its kind (EdenCollection, FullCollection) and one line per stop-the-world
// increment with its pause ("p=1.26ms"); the pause is placed just before its line's arrival.

/** One stop-the-world pause of the node's event loop (performance.now() ms of this process). */
export interface GcPause { start: number; end: number; kind: string }

/** Reads `stream` to its end; `pauses()` gives what it saw so far. */
export function readGcLog(stream: ReadableStream<Uint8Array>): { pauses: () => GcPause[]; collections: () => Array<{ at: number; kind: string }>; allocated: () => Array<{ at: number; bytes: number }> } {
  const pauses: GcPause[] = [];
  // a collection's START line gives the heap's size then ("START M 8889kb =>"), its END line the size
  // it left ("=> 5916kb, p=…END"): the difference between one's end and the next's start is what
  // the program allocated meanwhile
  const allocated: Array<{ at: number; bytes: number }> = [];
  let after: number | null = null;
  const collections: Array<{ at: number; kind: string }> = [];
  let kind = "?";
  void (async () => {
    let rest = "";
    const decoder = new TextDecoder();
    for await (const chunk of stream) {
      const at = performance.now();
      const lines = (rest + decoder.decode(chunk, { stream: true })).split("\n");
      rest = lines.pop()!;
      for (const line of lines) {
        const size = /: START \S+ (\d+)kb =>/.exec(line);
        if (size && after !== null) allocated.push({ at, bytes: Math.max(0, Number(size[1]) - after) * 1024 });
        const left = /=> (\d+)kb, p=[^\]]*END\]/.exec(line);
        if (left) after = Number(left[1]);
        const started = / => (\w+Collection)/.exec(line);
        if (started && line.includes(": START")) {
          kind = started[1]!.replace("Collection", "");
          collections.push({ at, kind });
        }
        for (const m of line.matchAll(/ p=([\d.]+)ms/g)) pauses.push({ start: at - Number(m[1]), end: at, kind });
      }
    }
  })().catch(() => {});
  return { pauses: () => pauses, collections: () => collections, allocated: () => allocated };
}

/** A line for the bench: the collections and pauses between `from` and `to`, and the slowest 1% of `requests` against them. */
export function describeGc(log: ReturnType<typeof readGcLog>, from: number, to: number, requests: Array<[number, number]>): string {
  const pauses = log.pauses().filter((p) => p.end >= from && p.end <= to);
  const kinds = new Map<string, number>();
  for (const c of log.collections()) if (c.at >= from && c.at <= to) kinds.set(c.kind, (kinds.get(c.kind) ?? 0) + 1);
  const ms = pauses.map((p) => p.end - p.start).sort((a, b) => a - b);
  const q = (f: number) => (ms.length ? ms[Math.min(ms.length - 1, Math.floor(f * ms.length))]! : 0);
  const overlap = (rs: Array<[number, number]>) => {
    let total = 0;
    for (const [due, latency] of rs) for (const p of pauses) total += Math.max(0, Math.min(p.end, due + latency) - Math.max(p.start, due));
    return (total / Math.max(1, rs.length)).toFixed(2);
  };
  const slowest = [...requests].sort((a, b) => b[1] - a[1]).slice(0, Math.max(1, Math.floor(requests.length / 100)));
  const bytes = log.allocated().filter((a) => a.at >= from && a.at <= to).reduce((sum, a) => sum + a.bytes, 0);
  return (
    `~${Math.round(bytes / 1024 / Math.max(1, requests.length))} KiB allocated per request (heap size at a collection's start less the last one's end); ` +
    `GC: ${[...kinds].map(([k, n]) => `${n} ${k}`).join(", ") || "no"} collections; ${ms.length} pauses, ${Math.round(ms.reduce((a, b) => a + b, 0))} ms in all, ` +
    `p50 ${q(0.5).toFixed(2)} ms, p90 ${q(0.9).toFixed(2)} ms, max ${q(1).toFixed(2)} ms, >= 5 ms: ${ms.filter((x) => x >= 5).length}; ` +
    `GC pause during a request, mean: slowest 1% ${overlap(slowest)} ms, all ${overlap(requests)} ms`
  );
}
