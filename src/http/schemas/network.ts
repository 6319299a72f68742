import * as v from "valibot";
import { DUNBAR_LAYERS, HEALTH_BANDS } from "../../domain/relationships/names.ts";

/** Record shapes of the network analytics (owner and extension), for the OpenAPI document. */

const Layer = v.picklist(DUNBAR_LAYERS);
const Band = v.picklist(HEALTH_BANDS);
const LayerCounts = v.record(v.string(), v.number());
const Header = {
  graphVersion: v.pipe(v.string(), v.description("content hash of the analysed contact graph")),
  computedAt: v.pipe(v.nullable(v.string()), v.description("when the analysis ran (RFC 3339)")),
  stale: v.pipe(v.boolean(), v.description("true while the database has moved on and a recompute is due or running (the last analysis is served meanwhile)")),
};

export const ClusterDoc = v.object({
  clusterId: v.pipe(v.string(), v.description("stable across recomputes while membership mostly holds (Jaccard ≥ 0.5)")),
  label: v.string(),
  size: v.pipe(v.number(), v.description("visible members only")),
  layerCounts: LayerCounts,
  density: v.number(),
  cohesion: v.number(),
  topContexts: v.array(v.object({ context: v.string(), count: v.number() })),
  updatedAt: v.nullable(v.string()),
  members: v.optional(v.array(v.object({ contactId: v.string(), layer: Layer, isConnector: v.boolean() }))),
  membersTruncated: v.optional(v.boolean()),
});
export const ClustersDoc = v.pipe(v.object({ ...Header, clusters: v.array(ClusterDoc) }), v.description("Clusters of the contact graph, biggest first"));

export const ConnectorDoc = v.object({
  contactId: v.string(),
  layer: Layer,
  band: v.nullable(Band),
  clusterId: v.nullable(v.string()),
  clusters: v.array(v.object({ from: v.string(), to: v.string(), edgesBetween: v.number() })),
  isSoleConnector: v.boolean(),
  isArticulationPoint: v.boolean(),
  isOnBridgeEdge: v.boolean(),
  bridgeRisk: v.pipe(v.boolean(), v.description("a sole connector whose relationship is cooling or worse")),
});
export const BridgesDoc = v.pipe(v.object({ ...Header, bridges: v.array(ConnectorDoc), atRisk: v.number() }), v.description("Sole connectors between clusters and articulation points"));

export const HealthDoc = v.pipe(
  v.object({
    layers: v.array(
      v.object({
        layer: Layer,
        size: v.number(),
        nominalSize: v.number(),
        bands: v.record(v.string(), v.number()),
        medianRatio: v.nullable(v.number()),
        score: v.pipe(v.nullable(v.number()), v.description("0–100; null for an empty layer")),
      }),
    ),
    overall: v.object({ size: v.number(), score: v.nullable(v.number()) }),
  }),
  v.description("Network health per layer: size against the nominal Dunbar size, share per health band, a 0–100 score"),
);

export const DecayingDoc = v.pipe(
  v.object({
    ...Header,
    total: v.number(),
    decaying: v.array(
      v.object({
        contactId: v.string(),
        name: v.optional(v.pipe(v.string(), v.description("the contact's display name (owner, or an installation with connections:list)"))),
        layer: Layer,
        band: Band,
        daysSince: v.number(),
        expectedCadenceDays: v.number(),
        trend: v.nullable(v.number()),
        reciprocity: v.nullable(v.number()),
        isBridge: v.boolean(),
        priority: v.number(),
        suggestedAction: v.picklist(["follow_up", "check_in", "note", "save_for_later"]),
      }),
    ),
  }),
  v.description("Relationships slipping (cooling, at risk; dormant in inner and active), most important first"),
);

export const GraphDoc = v.pipe(
  v.object({
    ...Header,
    totals: v.object({ nodes: v.number(), edges: v.number() }),
    truncated: v.boolean(),
    nodes: v.array(
      v.object({
        id: v.string(),
        label: v.string(),
        layer: Layer,
        band: v.nullable(Band),
        clusterId: v.nullable(v.string()),
        degree: v.number(),
        isSoleConnector: v.boolean(),
        isArticulationPoint: v.boolean(),
        bridgeRisk: v.boolean(),
      }),
    ),
    edges: v.array(v.object({ source: v.string(), target: v.string(), weight: v.number(), isBridge: v.boolean() })),
    clusters: v.array(v.object({ clusterId: v.string(), label: v.string(), size: v.number() })),
  }),
  v.description("The owner's contact graph for drawing, bounded to `limit` nodes"),
);
