import { describe, expect, test } from "bun:test";
import { relative, resolve } from "node:path";
import { closeDatabase, openDatabase } from "../../src/db/client.ts";

const ROOT = resolve(import.meta.dir, "../..");

/**
 * What `kith serve` evaluates before it answers: the static import closure of the entry and the
 * serve verb, as the bundler that builds the binary sees it (dynamic imports are loaded on first
 * use; the console page is a separate browser bundle). Each module evaluated at start costs start-up
 * time and idle memory (docs/decisions/inbound-performance.md, "Start-up"), so what only some nodes
 * or some requests need stays behind an import() and must not creep back in.
 */
async function startClosure(): Promise<Set<string>> {
  const built = await Bun.build({ entrypoints: [`${ROOT}/src/main.ts`], target: "bun", splitting: true, metafile: true, throw: false });
  if (!built.success) throw new Error(built.logs.map(String).join("\n"));
  // The metafile names files relative to the working directory; the closure, relative to the checkout.
  const inputs = new Map(Object.entries(built.metafile!.inputs).map(([file, input]) => [relative(ROOT, resolve(file)), input]));
  const imports = (file: string) => (inputs.get(file)?.imports ?? []).map((i) => ({ ...i, path: relative(ROOT, resolve(i.path)) }));
  const seen = new Set<string>();
  const queue = ["src/main.ts", "src/cli/serve.ts"];
  while (queue.length > 0) {
    const file = queue.pop()!;
    if (seen.has(file)) continue;
    seen.add(file);
    for (const i of imports(file)) {
      if (i.kind !== "dynamic-import" && !i.path.endsWith(".html") && inputs.has(i.path)) queue.push(i.path);
    }
  }
  return seen;
}

describe("kith serve start-up", () => {
  test("loads neither the other verbs nor what only some nodes or requests use", async () => {
    const closure = [...(await startClosure())];
    // the walk reaches what start-up does need (so an empty closure cannot pass)
    for (const needed of ["src/http/app.ts", "src/db/schema/index.ts", "node_modules/elysia/"]) expect(closure.some((file) => file.includes(needed))).toBe(true);
    const lazy = [
      // the other CLI verbs (src/main.ts loads the one that runs; init shares serve's code)
      "src/cli/keys.ts", "src/cli/owner.ts", "src/cli/mailbox.ts", "src/cli/doctor.ts", "src/cli/backup.ts", "src/cli/restore.ts",
      // the OpenAPI document, built on its first request
      "src/http/openapi.ts", "node_modules/@elysiajs/openapi/",
      // Google/Apple sign-in: arctic, on the first sign-in through a provider
      "src/adapters/oidc.ts", "node_modules/arctic/",
      // the background jobs, loaded once the node listens (src/node/create-node.ts)
      "src/node/jobs.ts", "src/jobs/",
      // SMTP (nodemailer) when KITH_SMTP_URL is set, prom-client when metrics are on, the network analytics worker
      "node_modules/nodemailer/", "node_modules/prom-client/", "node_modules/graphology", "node_modules/csv-parse/",
      // noble's AES tables and curves, built at import: the node seals and opens with native primitives
      // (src/security/envelope-crypto-native.ts), the pure-JS ones stay in src/ink/encryption-noble.ts
      "node_modules/@noble/ciphers/", "node_modules/@noble/curves/", "src/ink/encryption-noble.ts",
    ];
    expect(lazy.filter((name) => closure.some((file) => file.includes(name)))).toEqual([]);
  });

  test("opening the database builds no drizzle relational config (nothing uses db.query.*; it cost 1-3 ms per open)", () => {
    const db = openDatabase(":memory:");
    expect(Object.keys(db.query ?? {})).toEqual([]);
    closeDatabase(db);
  });
});
