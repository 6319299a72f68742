import * as v from "valibot";
import { AddRelationInput, addContactRelation } from "../../domain/network/add-contact-relation.ts";
import { removeContactRelation } from "../../domain/network/remove-contact-relation.ts";
import { getNetworkGraph } from "../../domain/network/get-network-graph.ts";
import { getNetworkHealth } from "../../domain/network/get-network-health.ts";
import { listDecayingContacts } from "../../domain/network/list-decaying-contacts.ts";
import { listNetworkBridges } from "../../domain/network/list-network-bridges.ts";
import { listNetworkClusters } from "../../domain/network/list-network-clusters.ts";
import { ClustersQuery, DecayingQuery, GraphQuery } from "../../domain/network/queries.ts";
import type { OwnerTokens } from "../../security/owner-token.ts";
import type { SurfaceDeps } from "../deps.ts";
import { conditional, NOT_MODIFIED } from "../etag.ts";
import { OWNER_SECURITY } from "../plugins/owner-auth.ts";
import { jsonBody } from "../schemas/body.ts";
import { errors } from "../schemas/common.ts";
import { BridgesDoc, ClustersDoc, DecayingDoc, GraphDoc, HealthDoc } from "../schemas/network.ts";
import { ownerApi } from "./owner.routes.ts";

const RelationDoc = v.object({ id: v.string(), contactA: v.string(), contactB: v.string(), source: v.picklist(["owner", "import"]), weight: v.number(), createdAt: v.string() });
const PairParams = v.object({ contactA: v.pipe(v.string(), v.minLength(1), v.maxLength(256)), contactB: v.pipe(v.string(), v.minLength(1), v.maxLength(256)) });

/**
 * The owner's network analytics (issue 15), unfiltered: the same analysis the extension API serves
 * per installation. Graph answers come from the last snapshot (`stale: true` while a recompute is
 * due); 503 only before the very first analysis could run. ETag / 304 on every one.
 */
export function networkRoutes(deps: SurfaceDeps, o: { tokens: Pick<OwnerTokens, "verify"> }) {
  const doc = (summary: string, description: string) => ({ tags: ["Network"], summary, description, security: OWNER_SECURITY, responses: NOT_MODIFIED });
  return ownerApi(o.tokens)
    .get("/network/graph", async ({ actor, query, request }) => conditional(request, await getNetworkGraph(deps.ctx(actor), query)), {
      query: GraphQuery,
      response: { 200: GraphDoc, ...errors(400, 401, 503) },
      detail: doc("The contact graph, for drawing", "The best-tied `limit` contacts (1–2000, default 500) with their cluster, layer, band and connector flags, the ties among them with their weight, and the clusters with labels. `totals` counts everything."),
    })
    .get("/network/clusters", async ({ actor, query, request }) => conditional(request, await listNetworkClusters(deps.ctx(actor), query)), {
      query: ClustersQuery,
      response: { 200: ClustersDoc, ...errors(400, 401, 503) },
      detail: doc("Clusters", "Louvain clusters of the contact graph with stable ids, labels, sizes, layer counts, density, cohesion and members (at most `maxMembers`, 1–2000, default 500)."),
    })
    .get("/network/bridges", async ({ actor, request }) => conditional(request, await listNetworkBridges(deps.ctx(actor))), {
      response: { 200: BridgesDoc, ...errors(401, 503) },
      detail: doc("Bridges", "Sole connectors between clusters and articulation points; bridge risk = a sole connector whose relationship is cooling or worse."),
    })
    .get("/network/health", ({ actor, request }) => conditional(request, getNetworkHealth(deps.ctx(actor))), {
      response: { 200: HealthDoc, ...errors(401) },
      detail: doc("Network health", "Per layer: size against the nominal Dunbar size, share per health band, median silence against the expected cadence, a 0–100 score."),
    })
    .get("/network/decaying", async ({ actor, query, request }) => conditional(request, await listDecayingContacts(deps.ctx(actor), query)), {
      query: DecayingQuery,
      response: { 200: DecayingDoc, ...errors(400, 401, 503) },
      detail: doc("Decaying relationships", "Contacts whose band is slipping, ordered by layer, how overdue, and whether they are a bridge, with a suggested action. `limit` 1–500, default 100."),
    })
    .post(
      "/network/relations",
      ({ actor, body, set }) => {
        const r = addContactRelation(deps.ctx(actor), body);
        set.status = r.created ? 201 : 200;
        return r.relation;
      },
      {
        body: jsonBody(AddRelationInput),
        response: { 200: RelationDoc, 201: RelationDoc, ...errors(400, 401, 404) },
        detail: { ...doc("State that two contacts know each other", "A tie of the contact graph that does not decay (weight 0.05–5, default 1); 201 when new, 200 when it replaced the weight. 404 unless both are contacts."), responses: {} },
      },
    )
    .delete(
      "/network/relations/:contactA/:contactB",
      ({ actor, params }) => {
        removeContactRelation(deps.ctx(actor), params.contactA, params.contactB);
        return { deleted: true as const };
      },
      {
        params: PairParams,
        response: { 200: v.object({ deleted: v.literal(true) }), ...errors(401, 404) },
        detail: { ...doc("Remove a stated relation", "Either order of the two contacts; 404 when there is no such relation."), responses: {} },
      },
    );
}
