import { pushToDirectory, type PushOutcome } from "../../src/domain/discovery/push-to-directory.ts";
import { listDuePushes } from "../../src/domain/discovery/list-due-pushes.ts";
import { formatTimestamp, signTransport } from "../../src/ink/index.ts";
import type { TestNode } from "./boot.ts";
import { freshNonce } from "./ink.ts";
import { personaKey, type PersonaName } from "./personas.ts";
import { testTls } from "./tls.ts";

export const LISTINGS_PATH = "/ink/v1/directory/listings";

/** Runs every due push of `node` now (what the directory pusher does), until nothing is due. */
export async function drainPushes(node: TestNode): Promise<PushOutcome[]> {
  const outcomes: PushOutcome[] = [];
  for (let round = 0; round < 10; round++) {
    const due = listDuePushes(node.ctx({ kind: "system", job: "pusher" }));
    if (due.length === 0) break;
    for (const item of due) outcomes.push(await pushToDirectory(node.ctx({ kind: "system", job: "pusher" }), item));
  }
  return outcomes;
}

/**
 * A listing request to `directory` as another agent would send it: `from` signs with a persona
 * key (or sends no signature), over the listing path, addressed to the directory's agent id.
 */
export function listingRequest(
  directory: TestNode,
  input: { from: string; cardUrl: string; action?: string; signer?: PersonaName | null; generation?: number; body?: Record<string, unknown>; timestamp?: number; nonce?: string },
): RequestInit & { body: string; headers: Record<string, string> } {
  const timestamp = formatTimestamp(input.timestamp ?? directory.clock.now());
  const body: Record<string, unknown> = {
    protocol: "ink/0.1",
    type: "network.svc.directory_listing",
    action: input.action ?? "publish",
    from: input.from,
    to: directory.agentId,
    cardUrl: input.cardUrl,
    nonce: input.nonce ?? freshNonce(),
    timestamp,
    ...input.body,
  };
  for (const [k, v] of Object.entries(body)) if (v === undefined) delete body[k];
  const headers: Record<string, string> = { "content-type": "application/json", "x-test-remote-address": `192.0.2.${Math.floor(Math.random() * 200) + 20}` };
  if (input.signer !== null) {
    const key = personaKey(input.signer ?? "alice", "signing", input.generation ?? 0);
    const signed = signTransport({ method: "POST", path: LISTINGS_PATH, recipientDid: directory.agentId!, body, timestamp: String(body.timestamp) }, key.privateKey, key.keyId);
    if (!signed.ok) throw new Error(`cannot sign: ${signed.reason}`);
    headers.authorization = signed.authorization;
  }
  return { method: "POST", headers, body: JSON.stringify(body) };
}

export type FakeMode = "ok" | "404" | "503" | "invalid" | "text" | "opted-out" | "unbound" | "other-agent";

/**
 * An agent whose card this test controls, served over TLS at https://<name>.kith.test:<port>:
 * its id is derived from `persona`'s genesis key; `mode` switches what the card URL answers, and
 * `extraKeys` adds signing keys (e.g. a key the genesis owner never held).
 */
export function fakeAgent(name: string, persona: PersonaName, options: { extraKeys?: PersonaName[]; listings?: (req: Request) => Response | Promise<Response> } = {}) {
  const genesis = personaKey(persona, "signing", 0);
  const agentId = `svc:${genesis.publicKeyMultibase}`;
  const state = { mode: "ok" as FakeMode, hits: 0, tags: ["rust"] as string[], handle: name, displayName: `${name[0]!.toUpperCase()}${name.slice(1)} Fake` };
  let base = "";
  const cardPath = `/ink/v1/${encodeURIComponent(agentId)}/agent.json`;
  const key = (p: PersonaName, id: string) => ({ keyId: id, algorithm: "Ed25519", publicKeyMultibase: personaKey(p, "signing", 0).publicKeyMultibase, status: "active", validFrom: "2026-01-01T00:00:00.000Z" });
  const card = () => {
    const signing = state.mode === "unbound" ? [] : [key(persona, `sig-${persona}-0`)];
    for (const extra of options.extraKeys ?? []) signing.push(key(extra, `sig-${extra}-extra`));
    return {
      protocol: "ink/0.1",
      agentId: state.mode === "other-agent" ? `svc:${personaKey("carol", "signing", 0).publicKeyMultibase}` : agentId,
      handle: state.handle,
      displayName: state.displayName,
      endpoint: `${base}/ink/v1/${agentId}/intent`,
      publicKeyMultibase: genesis.publicKeyMultibase,
      capabilities: { intentsAccepted: ["ping"], intentsSent: ["ping"] },
      availability: { timezone: "UTC" },
      keys: { signing, encryption: [] },
      visibility: "public",
      discovery: { enabled: state.mode !== "opted-out", scope: "public", tags: state.tags, location: "Zagreb", roles: ["tester"] },
      profileSnapshot: { headline: `${name} headline`, skills: ["Testing", "Rust"], interests: ["chess"], openTo: ["mentoring"] },
    };
  };
  const server = Bun.serve({
    port: 0,
    hostname: "127.0.0.1",
    tls: testTls(),
    fetch(req) {
      const path = new URL(req.url).pathname;
      if (path === LISTINGS_PATH && options.listings) return options.listings(req);
      if (path !== cardPath && path !== "/.well-known/ink/agent.json") return new Response("not found", { status: 404 });
      state.hits++;
      if (state.mode === "404") return new Response("gone", { status: 404 });
      if (state.mode === "503") return new Response("busy", { status: 503 });
      if (state.mode === "invalid") return Response.json({ protocol: "ink/0.1", agentId });
      if (state.mode === "text") return new Response(JSON.stringify(card()), { headers: { "content-type": "text/plain" } });
      return Response.json(card());
    },
  });
  base = `https://${name}.kith.test:${server.port}`;
  return {
    agentId,
    principal: `key:${genesis.publicKeyMultibase}`,
    base,
    cardUrl: `${base}${cardPath}`,
    state,
    stop: () => server.stop(true),
  };
}
