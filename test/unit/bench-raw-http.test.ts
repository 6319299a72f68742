import { expect, test } from "bun:test";
import { encodeRequest, rawClient } from "../../scripts/bench/raw-http.ts";

// The benchmarks' load generator (scripts/bench/raw-http.ts). A connection the server closed used to
// stay in its pool: requests given to it were never answered, and a benchmark run hung with the node
// idle (seen twice in scripts/bench/inbound.ts runs).
test("the load generator replaces connections the server closes, and every request gets an answer", async () => {
  let served = 0;
  const server = Bun.serve({ port: 0, hostname: "127.0.0.1", fetch: () => new Response("ok", ++served <= 8 ? { headers: { connection: "close" } } : {}) });
  const client = await rawClient("127.0.0.1", server.port!, 8);
  const request = encodeRequest("127.0.0.1", "GET", "/", {}, "");
  try {
    expect(await Promise.all(Array.from({ length: 8 }, () => client.send(request)))).toEqual(Array(8).fill(200));
    await Bun.sleep(50); // the closes arrive
    const answers = Promise.all(Array.from({ length: 16 }, () => client.send(request)));
    const timeout = new Promise<"hung">((resolve) => setTimeout(() => resolve("hung"), 3_000));
    expect(await Promise.race([answers, timeout])).toEqual(Array(16).fill(200));
  } finally {
    client.close();
    server.stop(true);
  }
});
