import { Elysia } from "elysia";
import * as v from "valibot";
import { ChatInput, chatWithAgent } from "../../domain/network/chat-with-agent.ts";
import { getExtHealth } from "../../domain/network/get-ext-health.ts";
import { listExtBridges } from "../../domain/network/list-ext-bridges.ts";
import { listExtClusters } from "../../domain/network/list-ext-clusters.ts";
import { listExtDecaying } from "../../domain/network/list-ext-decaying.ts";
import { DecayingQuery } from "../../domain/network/queries.ts";
import type { SurfaceDeps } from "../deps.ts";
import { conditional, NOT_MODIFIED } from "../etag.ts";
import { EXT_SECURITY, extBody, extensionAuth } from "../plugins/extension-auth.ts";
import { routeOptions } from "../plugins/route-options.ts";
import { extErrors } from "../schemas/extensions.ts";
import { BridgesDoc, ClustersDoc, DecayingDoc, HealthDoc } from "../schemas/network.ts";
import { scopeOf } from "./ext.routes.ts";

const ChatReplyDoc = v.object({
  reply: v.string(),
  backend: v.pipe(v.picklist(["builtin", "llm"]), v.description("which backend produced the reply")),
  topic: v.optional(v.picklist(["decaying", "bridges", "find_contact", "unknown"])),
  model: v.optional(v.string()),
  fallbackReason: v.optional(v.string()),
});
const CHAT_MAX_BYTES = 16 * 1024;

/**
 * The extension API's relationship intelligence (issue 15): health, decaying, clusters, bridges
 * and agent chat, behind the same delegation plugin as the rest of /ext/v1. Every answer is
 * filtered to the installation's granted layers at read time (domain/network); ETag / 304 on the
 * four reads.
 */
export function extNetworkRoutes(deps: SurfaceDeps) {
  const doc = (summary: string, description: string, permission: string, read = true) => ({
    tags: ["Extension API"],
    summary,
    description: `${description} Permission: ${permission} (403 permission_missing with required otherwise).`,
    security: EXT_SECURITY,
    "x-svc": { extensionScopes: [scopeOf(permission)], permission },
    ...(read ? { responses: NOT_MODIFIED } : {}),
  });
  const GET = { extension: { maxBytes: 0 } };
  return new Elysia({ prefix: "/ext/v1" })
    .use(routeOptions)
    .use(extensionAuth(deps))
    .get("/health", ({ actor, request }) => conditional(request, getExtHealth(deps.ctx(actor))), {
      ...GET,
      response: { 200: HealthDoc, ...extErrors(401, 403, 429) },
      detail: doc("Network health", "Per granted layer: size against the nominal Dunbar size, share of contacts per health band, a 0–100 score; the overall figures count granted layers only.", "layers:read"),
    })
    .get("/decaying", async ({ actor, query, request }) => conditional(request, await listExtDecaying(deps.ctx(actor), query)), {
      ...GET,
      query: DecayingQuery,
      response: { 200: DecayingDoc, ...extErrors(400, 401, 403, 429, 503) },
      detail: doc("Decaying relationships", "Contacts of the granted layers whose band is slipping, ordered by layer, how overdue and whether they are a bridge, with a suggested action; names only with connections:list. `limit` 1–500, default 100.", "layers:read"),
    })
    .get("/clusters", async ({ actor, request }) => conditional(request, await listExtClusters(deps.ctx(actor))), {
      ...GET,
      response: { 200: ClustersDoc, ...extErrors(401, 403, 429, 503) },
      detail: doc("Clusters", "How the visible contacts group together; sizes and layer counts over visible members only, clusters without one omitted; member lists only with graph:read:clusters:members.", "graph:read:clusters:summary"),
    })
    .get("/bridges", async ({ actor, request }) => conditional(request, await listExtBridges(deps.ctx(actor))), {
      ...GET,
      response: { 200: BridgesDoc, ...extErrors(401, 403, 429, 503) },
      detail: doc("Bridges", "Visible sole connectors between clusters and articulation points, computed on the visible contacts; bridge risk = a sole connector whose relationship is cooling or worse.", "graph:read:bridges"),
    })
    .post("/agent/chat", async ({ actor, rawBody }) => chatWithAgent(deps.ctx(actor), extBody(rawBody, ChatInput)), {
      extension: { maxBytes: CHAT_MAX_BYTES },
      parse: "none",
      bodyDoc: ChatInput,
      response: { 200: ChatReplyDoc, ...extErrors(400, 401, 403, 413, 415, 429) },
      detail: doc("Talk to the agent", "`{message}` (1–4000 characters) → the agent's reply from what this installation may see; `backend` says whether the LLM (KITH_LLM_URL) or the built-in answered.", "agent.chat", false),
    });
}
