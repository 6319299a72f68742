// How the console's network drawing (src/console/screens/network.tsx) scales with the contacts drawn
// (issue 17: "it must stay fast at a few thousand contacts"). Measured, not tested.
// Usage: npx bun scripts/bench/console-network.ts [runs=7]
// A seeded 3,000-contact network (10 planted communities of 300, ~12k ties; test/helpers/network-fixture.ts).
// For the best-tied N contacts (as GET /api/svc/network/graph?limit=N picks them) it times, median of
// `runs`: the layout (lib/graph-layout.ts, in Bun) and, in Chromium, inserting the same SVG the screen
// draws (N circles with titles, the ties among them as lines) up to the next painted frame. The
// baseline of the same run is N = 400, what the screen drew before; the others print as ratios.
import { layout } from "../../src/console/lib/graph-layout.ts";
import { HAS_CHROMIUM, CHROMIUM, launchChromium } from "../../test/helpers/browser.ts";
import { plantCommunities } from "../../test/helpers/network-fixture.ts";

const runs = Number(process.argv[2] ?? 7);
if (!HAS_CHROMIUM) {
  console.error(`no chromium at ${CHROMIUM}`);
  process.exit(2);
}
const net = plantCommunities({ k: 10, size: 300, pIn: 0.02, seed: 7 });
const degree = new Map<string, number>();
for (const [a, b] of net.ties) for (const x of [a, b]) degree.set(x, (degree.get(x) ?? 0) + 1);
const community = new Map(net.contacts.map((c) => [c.id, `k${c.community}`]));
const ranked = [...degree.entries()].sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : 1)).map(([id]) => id);

function svgFor(n: number): { markup: string; layoutMs: number; edges: number } {
  const ids = new Set(ranked.slice(0, n));
  const nodes = [...ids].map((id) => ({ id, clusterId: community.get(id) ?? null, degree: degree.get(id)! }));
  const t0 = performance.now();
  const { at } = layout(nodes, 640);
  const layoutMs = performance.now() - t0;
  const edges = net.ties.filter(([a, b]) => ids.has(a) && ids.has(b));
  const lines = edges.map(([a, b]) => { const p = at.get(a)!; const q = at.get(b)!; return `<line x1="${p.x}" y1="${p.y}" x2="${q.x}" y2="${q.y}"/>`; }).join("");
  const dots = nodes.map((m) => { const p = at.get(m.id)!; return `<circle cx="${p.x}" cy="${p.y}" r="4" class="node c${p.group % 8}" data-id="${m.id}"><title>Contact ${m.id}</title></circle>`; }).join("");
  return { markup: `<svg viewBox="0 0 640 640" width="640" height="640"><g stroke="#999" stroke-width="0.5">${lines}</g>${dots}</svg>`, layoutMs, edges: edges.length };
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
const browser = await launchChromium();
try {
  const page = await browser.newPage();
  const results: Array<{ n: number; edges: number; layout: number; render: number }> = [];
  for (const n of [400, 1000, 2000, 3000]) {
    const layoutMs: number[] = [];
    const renderMs: number[] = [];
    let edges = 0;
    for (let i = 0; i < runs; i++) {
      const s = svgFor(n);
      layoutMs.push(s.layoutMs);
      edges = s.edges;
      await page.setContent("<!doctype html><body></body>");
      // A function, not a string: insert, force style and layout, then wait for the frame to be painted.
      renderMs.push(
        await page.evaluate(async (markup) => {
          const d = (globalThis as any).document;
          const t0 = performance.now();
          d.body.innerHTML = markup;
          d.body.getBoundingClientRect();
          await new Promise((r) => (globalThis as any).requestAnimationFrame(() => (globalThis as any).requestAnimationFrame(r)));
          return performance.now() - t0;
        }, s.markup),
      );
    }
    results.push({ n, edges, layout: median(layoutMs), render: median(renderMs) });
  }
  const base = results[0]!;
  for (const r of results) {
    console.log(`${String(r.n).padStart(4)} contacts, ${String(r.edges).padStart(5)} ties: layout ${r.layout.toFixed(2)} ms, render ${r.render.toFixed(0)} ms (median of ${runs}); ${(r.render / base.render).toFixed(1)}x the 400-contact render`);
  }
} finally {
  await browser.close();
}
