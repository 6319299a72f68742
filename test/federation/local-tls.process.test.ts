import { afterAll, expect, setDefaultTimeout, test } from "bun:test";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { freePort, waitFor } from "../helpers/network-process.ts";
import { json, ROOT, runKith, startKith, type RunningNode } from "../helpers/process.ts";

// Spawns kith processes (or compiles the binary): a longer per-test timeout than the suite's 5 s.
setDefaultTimeout(60_000);

/**
 * The README's "two nodes on one machine over TLS" recipe, checked: its OpenSSL lines are taken
 * from the README as written and run; two `kith serve` processes then use the certificate and the
 * CA they made, and one delivers a connection request to the other over HTTPS.
 */
const work = mkdtempSync(join(tmpdir(), "kith-tls-recipe-"));
const running: RunningNode[] = [];
afterAll(async () => {
  await Promise.all(running.map((n) => n.stop("SIGKILL")));
  rmSync(work, { recursive: true, force: true });
});

test("the README's OpenSSL recipe makes certificates two local nodes federate with", async () => {
  const readme = readFileSync(join(ROOT, "README.md"), "utf8");
  const recipe = readme.split("<!-- tls-recipe:start -->")[1]!.split("<!-- tls-recipe:end -->")[0]!.match(/```sh\n([\s\S]*?)```/)![1]!;
  writeFileSync(join(work, "recipe.sh"), recipe);
  const made = Bun.spawnSync(["bash", "-euo", "pipefail", "recipe.sh"], { cwd: work, stderr: "pipe" });
  expect({ code: made.exitCode, stderr: made.exitCode === 0 ? "" : made.stderr.toString() }).toEqual({ code: 0, stderr: "" });
  const ca = readFileSync(join(work, "tls/ca.crt"), "utf8");
  const env = {
    KITH_TLS_CERT_FILE: join(work, "tls/localhost.crt"),
    KITH_TLS_KEY_FILE: join(work, "tls/localhost.key"),
    KITH_TLS_CA_FILE: join(work, "tls/ca.crt"),
    KITH_ALLOW_PRIVATE_PEERS: "1",
  };
  const tlsFetch = (url: string, init: RequestInit = {}) => fetch(url, { ...init, tls: { ca } } as RequestInit);

  const nodes = [];
  for (const name of ["alice", "bob"]) {
    const port = freePort();
    const dir = join(work, name);
    const init = await runKith(["init", "--data-dir", dir, "--handle", name, "--public-url", `https://localhost:${port}`, "--owner-email", `${name}@example.com`], { env });
    expect(init.code).toBe(0);
    const agentId = init.stdout.match(/agent id:\s+(\S+)/)![1]!;
    const node = await startKith(["--data-dir", dir, "--port", String(port)], { env, ca });
    running.push(node);
    nodes.push({ name, dir, base: `https://localhost:${port}`, agentId, node });
  }
  const [alice, bob] = nodes as [(typeof nodes)[0], (typeof nodes)[0]];
  const code = (await runKith(["owner", "code", "--data-dir", alice.dir])).stdout.trim().split("\n").at(-1)!;
  const signedIn = await tlsFetch(`${alice.base}/auth/email/verify`, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify({ email: "alice@example.com", code }) });
  expect(signedIn.status).toBe(200);
  const token = (await json(signedIn)).accessToken as string;
  const owner = { authorization: `Bearer ${token}`, "content-type": "application/json" };

  const cardUrl = `${bob.base}/ink/v1/${encodeURIComponent(bob.agentId)}/agent.json`;
  expect((await tlsFetch(cardUrl)).status).toBe(200);
  const added = await tlsFetch(`${alice.base}/api/svc/connections`, { method: "POST", headers: owner, body: JSON.stringify({ cardUrl, context: "Local test network" }) });
  expect(added.status).toBe(202);
  const sent = await json(added);
  const id = sent.request.id as string;
  const delivery = await waitFor("the connection request delivered over TLS", async () => {
    const d = (await json(await tlsFetch(`${alice.base}/api/svc/intents/${id}`, { headers: owner }))).delivery;
    return d?.state === "delivered" ? d : undefined;
  });
  expect(delivery.state).toBe("delivered");
}, 60_000);
