// The load generator of inbound-turns.ts's socket mode, in its own process (its CPU is not the
// node's): sends the requests of a file (JSON: [{path, headers, body}], signed beforehand) to
// 127.0.0.1:<port> over keep-alive connections, either closed-loop (`waves`: CONCURRENCY requests
// outstanding, the next sent as each is answered: saturation's shape) or open-loop (`paced`: RATE a
// second on timers, as inbound.ts's latency phase). Prints the statuses that were not 202; exits 0.
// Usage: bun scripts/bench/inbound-turns-client.ts <port> <file> <waves|paced> <rate> <concurrency>
import { encodeRequest, rawClient } from "./raw-http.ts";

const [port, file, mode, rate, concurrency] = [Number(process.argv[2]), process.argv[3]!, process.argv[4]!, Number(process.argv[5]), Number(process.argv[6])];
const items = (await Bun.file(file).json()) as Array<{ path: string; headers: Record<string, string>; body: string }>;
const requests = items.map((r) => encodeRequest(`127.0.0.1:${port}`, "POST", r.path, r.headers, r.body));
const client = await rawClient("127.0.0.1", port, concurrency);
const odd = new Map<number, number>();
const count = (status: number) => void (status !== 202 && odd.set(status, (odd.get(status) ?? 0) + 1));
if (mode === "waves") {
  let next = 0;
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (next < requests.length) count(await client.send(requests[next++]!));
    }),
  );
} else {
  const inFlight: Array<Promise<void>> = [];
  const start = performance.now();
  for (let i = 0; i < requests.length; ) {
    for (; i < requests.length && start + (i * 1000) / rate <= performance.now(); i++) inFlight.push(client.send(requests[i]!).then(count));
    await Bun.sleep(Math.max(0, start + (i * 1000) / rate - performance.now()));
  }
  await Promise.all(inFlight);
}
client.close();
if (odd.size > 0) console.log(`statuses other than 202: ${[...odd].map(([s, n]) => `${s}×${n}`).join(", ")}`);
process.exit(0);
