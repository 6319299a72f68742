// keep-in-touch: a Kith extension written with @kith/extension-sdk only.
//
//   npx bun index.ts keygen             → a fresh key (keep privateKey secret); README.md has the steps
//   npx bun index.ts manifest           → the manifest for KEEPINTOUCH_KEY's public key
//   npx bun index.ts run                → one run (cron it daily)
//
// A run (notes/EXTENSIONS.md §5.3): read who is slipping in the inner and active layers; `ping`
// those who are cooling (transactional: it may go out on its own) and `ask` those at risk (social:
// held for the owner's approval unless granted); follow the outcomes on the event feed from the
// cursor saved by the last run; verify the installation's audit chain. Each thing it does is one
// JSON line on stdout. Exit 0, 1 when the audit chain does not verify, 3 when uninstalled.
//
// Environment: KITH_URL, KITH_INSTALLATION_ID, KEEPINTOUCH_KEY (base64url seed), KITH_TOKEN
// (optional: the first token), KEEPINTOUCH_STATE (a folder for the cursor, the token and who was
// nudged; default ./state), KITH_CA_FILE (optional, Bun: trust this CA, for a test node).
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { AuthError, type DecayingContact, fileCursorStore, generateKeyPair, KithClient, NotFoundError, PermissionError, publicKeyOf } from "@kith/extension-sdk";
import { manifest } from "./manifest.ts";

const NUDGE_EVERY_MS = 7 * 86_400_000;
const out = (record: Record<string, unknown>) => console.log(JSON.stringify(record));

function env(name: string): string {
  const value = process.env[name];
  if (!value) throw new Error(`${name} is required`);
  return value;
}

function client(state: string): KithClient {
  const ca = process.env.KITH_CA_FILE ? readFileSync(process.env.KITH_CA_FILE, "utf8") : null;
  const tokenFile = join(state, "token");
  return new KithClient({
    baseUrl: env("KITH_URL"),
    installationId: env("KITH_INSTALLATION_ID"),
    privateKey: env("KEEPINTOUCH_KEY"),
    token: process.env.KITH_TOKEN ?? null,
    tokenStore: {
      load: () => {
        try {
          return readFileSync(tokenFile, "utf8");
        } catch {
          return null;
        }
      },
      save: (token) => writeFileSync(tokenFile, token, { mode: 0o600 }),
    },
    ...(ca ? { fetch: ((url: URL, init: RequestInit) => fetch(url, { ...init, tls: { ca } } as RequestInit)) as unknown as typeof fetch } : {}),
  });
}

/** Who is slipping: /decaying when the node serves it, else the layer list's health bands. */
async function slipping(kith: KithClient): Promise<Array<Pick<DecayingContact, "contactId" | "layer" | "band">>> {
  try {
    return (await kith.decaying()).decaying;
  } catch (err) {
    if (!(err instanceof NotFoundError)) throw err;
    const { assignments } = await kith.layers.list({ limit: 200 });
    return assignments.filter((a) => a.health === "cooling" || a.health === "at_risk" || a.health === "dormant").map((a) => ({ contactId: a.contactId, layer: a.layer, band: a.health as string }));
  }
}

async function run(): Promise<number> {
  const state = process.env.KEEPINTOUCH_STATE ?? "state";
  mkdirSync(state, { recursive: true });
  const nudgedFile = join(state, "nudged.json");
  let nudged: Record<string, number> = {};
  try {
    nudged = JSON.parse(readFileSync(nudgedFile, "utf8"));
  } catch {}
  const kith = client(state);
  try {
    const me = await kith.identity();
    out({ step: "identity", agentId: me.agentId, permissions: me.permissions, layers: me.layers, maxAutonomyTier: me.maxAutonomyTier });

    // Follow first: outcomes of earlier runs, from the saved cursor (or from now on the first run).
    const follow = async () => {
      for await (const e of kith.events.stream({ cursorStore: fileCursorStore(join(state, "cursor.json")), untilIdle: true, onGap: (gap) => out({ step: "gap", ...gap }) })) {
        if (e.kind.startsWith("intent.") || e.kind.startsWith("approval.") || e.kind.startsWith("relationship.") || e.kind.startsWith("installation.")) out({ step: "event", seq: e.seq, kind: e.kind, data: e.data });
      }
    };
    await follow();

    for (const c of await slipping(kith)) {
      if (c.layer !== "inner" && c.layer !== "active") continue;
      if (Date.now() - (nudged[c.contactId] ?? 0) < NUDGE_EVERY_MS) continue;
      const cooling = c.band === "cooling";
      try {
        const result = cooling
          ? await kith.intents.send({ to: c.contactId, intent: "ping", payload: { note: "Thinking of you — how have you been?" } })
          : await kith.intents.send({ to: c.contactId, intent: "ask", payload: { question: "It has been a while — coffee or a call in the next weeks?" } });
        nudged[c.contactId] = Date.now();
        out({ step: "nudge", contactId: c.contactId, band: c.band, intent: cooling ? "ping" : "ask", status: result.status, approvalId: result.status === "pending_approval" ? result.approvalId : undefined });
      } catch (err) {
        if (!(err instanceof PermissionError)) throw err;
        out({ step: "nudge_refused", contactId: c.contactId, code: err.code, required: err.required });
      }
    }
    writeFileSync(nudgedFile, JSON.stringify(nudged));
    await follow();

    const chain = await kith.audit.verifyChain();
    out({ step: "audit", ...chain });
    return chain.ok ? 0 : 1;
  } catch (err) {
    if (err instanceof AuthError) {
      out({ step: "refused", status: err.status, code: err.code });
      return err.code === "installation_inactive" ? 3 : 2;
    }
    throw err;
  }
}

const command = process.argv[2];
if (command === "keygen") out(await generateKeyPair());
else if (command === "manifest") console.log(JSON.stringify(manifest(await publicKeyOf(env("KEEPINTOUCH_KEY"))), null, 2));
else if (command === "run") process.exit(await run());
else {
  console.error("usage: index.ts keygen | manifest | run");
  process.exit(64);
}
