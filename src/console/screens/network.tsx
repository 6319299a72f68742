/** @jsxImportSource preact */
import { api, qs } from "../lib/api.ts";
import { HEALTH_LABELS, LAYER_LABELS } from "../lib/format.ts";
import { layout } from "../lib/graph-layout.ts";
import { useLoad } from "../lib/live.ts";
import { HEALTH_TONE } from "../lib/people.ts";
import { go, link } from "../lib/router.ts";
import { Badge, Empty, Loaded, PageHeader, Row, Section, Table } from "../ui/kit.tsx";

interface GraphNode { id: string; label: string; layer: string; band: string | null; clusterId: string | null; degree: number; isSoleConnector: boolean; isArticulationPoint: boolean; bridgeRisk: boolean }
interface Graph {
  stale: boolean;
  computedAt: string | null;
  totals: { nodes: number; edges: number };
  truncated: boolean;
  nodes: GraphNode[];
  edges: Array<{ source: string; target: string; isBridge: boolean }>;
  clusters: Array<{ clusterId: string; label: string; size: number }>;
}
interface Health { layers: Array<{ layer: string; size: number; nominalSize: number; score: number | null }>; overall: { size: number; score: number | null } }
interface Decaying { total: number; decaying: Array<{ contactId: string; name?: string; layer: string; band: string; daysSince: number; expectedCadenceDays: number; isBridge: boolean; suggestedAction: string }> }

/**
 * Contacts drawn (the best-tied ones). scripts/bench/console-network.ts on a seeded 3,000-contact
 * network, medians of 7 against the 400-contact drawing of the same run: layout under 1.5 ms at any
 * size; Chromium's insert-to-paint 1.3-1.9x at 1,000, 2.5-3.3x at 2,000 (~70 ms), 3.9-5.2x at 3,000
 * (~105-120 ms) on a quiet machine (7-17x under heavy load). 2,000 is also the most
 * GET /network/graph answers, so past it the screen says it draws the best-connected 2,000.
 */
const DRAWN = 2000;
const SIZE = 640;
const COLOURS = 8;
const ACTION: Record<string, string> = { follow_up: "Follow up", check_in: "Check in", note: "Add a note", save_for_later: "Save for later" };

/** The owner's network (issue 15's analytics): the contact graph drawn, its health, and who is slipping away. */
export function Network() {
  const graph = useLoad(() => api<Graph>(`/network/graph${qs({ limit: DRAWN })}`), "graph");
  const health = useLoad(() => api<Health>("/network/health"), "health");
  const decaying = useLoad(() => api<Decaying>(`/network/decaying${qs({ limit: 10 })}`), "decaying");
  return (
    <>
      <PageHeader title="Network" subtitle="Who you know, how they group together, and who holds the groups together." />
      <Section title="Your contacts">
        <Loaded state={graph}>{(g) => (g.nodes.length === 0 ? <Empty title="No contacts to draw yet">Connect to people or import your contacts; the picture appears once the node has analysed them.</Empty> : <Drawing g={g} />)}</Loaded>
      </Section>
      <Section title="Slipping away">
        <Loaded state={decaying}>
          {(d) =>
            d.decaying.length === 0 ? <Empty title="Nobody is slipping away">Every relationship is keeping its rhythm.</Empty> : (
              <>
              <p class="hint">{d.total > d.decaying.length ? `The ${d.decaying.length} most important of ${d.total}, ` : ""}most important first: closest circles, longest overdue, and those who connect your groups.</p>
              <ul class="list" aria-label="Decaying contacts">
                {d.decaying.map((c) => (
                  <Row
                    href={link("connections", c.contactId)}
                    title={c.name ?? c.contactId}
                    meta={`${c.daysSince} days quiet (usually ${c.expectedCadenceDays})`}
                    sub={ACTION[c.suggestedAction] ?? c.suggestedAction}
                    tags={<><Badge tone="accent">{LAYER_LABELS[c.layer] ?? c.layer}</Badge><Badge tone={HEALTH_TONE[c.band] ?? "neutral"}>{HEALTH_LABELS[c.band] ?? c.band}</Badge>{c.isBridge && <Badge tone="bad">connects groups</Badge>}</>}
                  />
                ))}
              </ul>
              </>
            )
          }
        </Loaded>
      </Section>
      <Section title="Health by circle">
        <Loaded state={health}>
          {(h) => (
            <>
              <p>Overall score: <strong>{h.overall.score ?? "—"}</strong> / 100 across {h.overall.size} contacts.</p>
              <Table
                caption="Each circle against its usual size"
                columns={[
                  { label: "Circle", cell: (l) => LAYER_LABELS[l.layer] ?? l.layer },
                  { label: "People", cell: (l) => `${l.size} of about ${l.nominalSize}` },
                  { label: "Score", cell: (l) => (l.score === null ? "—" : `${l.score} / 100`) },
                ]}
                rows={h.layers}
              />
            </>
          )}
        </Loaded>
      </Section>
    </>
  );
}

/**
 * SVG of the graph: colour = cluster, a thick ring = sole connector between clusters, red ring =
 * a connector whose relationship is cooling (bridge at risk), dashed line = a tie whose loss splits
 * the graph. A click opens the contact; the tables below say the same for keyboard and screen readers.
 */
function Drawing({ g }: { g: Graph }) {
  const { at, centres } = layout(g.nodes, SIZE);
  const colour = new Map(centres.map((c, i) => [c.key, i % COLOURS]));
  const label = new Map(g.clusters.map((c) => [c.clusterId, c.label]));
  const connectors = g.nodes.filter((n) => n.isSoleConnector || n.isArticulationPoint);
  return (
    <>
      <p class="hint">{g.truncated ? `Drawn: the ${g.nodes.length} best-connected of your ${g.totals.nodes} contacts (at most ${DRAWN}, so the picture stays fast and readable).` : `All ${g.totals.nodes} contacts.`} Colour is the group; a ringed dot connects groups alone (red: that relationship is cooling).</p>
      <svg class="graph" viewBox={`0 0 ${SIZE} ${SIZE}`} role="img" aria-label={`Your contact graph: ${g.nodes.length} contacts in ${g.clusters.length} groups, ${connectors.length} connectors. The tables below list the same.`}
        onClick={(e) => { const id = (e.target as Element).getAttribute("data-id"); if (id) go(link("connections", id)); }}>
        <g class="graph-edges">
          {g.edges.map((e) => { const a = at.get(e.source); const b = at.get(e.target); return a && b && <line x1={a.x} y1={a.y} x2={b.x} y2={b.y} class={e.isBridge ? "edge-bridge" : undefined} />; })}
        </g>
        {g.nodes.map((n) => {
          const p = at.get(n.id)!;
          const ring = n.bridgeRisk ? " node-risk" : n.isSoleConnector || n.isArticulationPoint ? " node-connector" : "";
          return <circle cx={p.x} cy={p.y} r={n.isSoleConnector || n.isArticulationPoint ? 6 : 4} class={`node c${colour.get(n.clusterId ?? "")}${ring}`} data-id={n.id}><title>{n.label}</title></circle>;
        })}
        {centres.map((c) => c.key && <text x={c.x} y={c.y - c.r - 6} text-anchor="middle" class="graph-label">{label.get(c.key) ?? ""}</text>)}
      </svg>
      <Table caption="Groups" columns={[
        { label: "Group", cell: (c) => <span class="legend"><span class={`swatch c${colour.get(c.clusterId)}`} aria-hidden="true" />{c.label}</span> },
        { label: "People", cell: (c) => c.size },
      ]} rows={g.clusters} />
      {connectors.length > 0 && (
        <Table caption="Who holds your groups together" columns={[
          { label: "Contact", cell: (n) => <a href={link("connections", n.id)}>{n.label}</a> },
          { label: "Group", cell: (n) => (n.clusterId ? label.get(n.clusterId) ?? "—" : "—") },
          { label: "Role", cell: (n) => [n.isSoleConnector && "sole connector", n.isArticulationPoint && "holds the graph together"].filter(Boolean).join(", ") },
          { label: "Health", cell: (n) => (n.band ? <Badge tone={n.bridgeRisk ? "bad" : HEALTH_TONE[n.band] ?? "neutral"}>{HEALTH_LABELS[n.band] ?? n.band}</Badge> : "—") },
        ]} rows={connectors} />
      )}
    </>
  );
}
