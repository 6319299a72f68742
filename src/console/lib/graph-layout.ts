/**
 * A deterministic layout for the contact graph (no layout library: the console's 40 KB budget, and
 * the same picture on every load): clusters sit on a ring, biggest first, each a disc sized by its
 * members; inside a disc members follow a sunflower spiral, best-connected at the centre.
 * Contacts in no cluster form a disc of their own. O(n log n), fast at a few thousand contacts.
 */
export interface LayoutNode {
  id: string;
  clusterId: string | null;
  degree: number;
}

export interface Placed {
  x: number;
  y: number;
  /** Index of the node's group (cluster order, biggest first; the unclustered last), for its colour. */
  group: number;
}

const GOLDEN = Math.PI * (3 - Math.sqrt(5));
const SPACING = 9;

export function layout(nodes: LayoutNode[], size: number): { at: Map<string, Placed>; centres: Array<{ key: string; x: number; y: number; r: number }> } {
  const groups = new Map<string, LayoutNode[]>();
  for (const n of nodes) {
    const key = n.clusterId ?? "";
    const members = groups.get(key);
    if (members) members.push(n);
    else groups.set(key, [n]); // not a spread per member: that was O(n²) in a group's size
  }
  const order = [...groups.entries()].sort(([a, x], [b, y]) => (a === "") !== (b === "") ? (a === "" ? 1 : -1) : y.length - x.length || (a < b ? -1 : 1));
  const radii = order.map(([, members]) => SPACING * Math.sqrt(members.length) + SPACING);
  // Ring radius: the discs side by side around it (circumference ≈ sum of diameters), at least the largest disc.
  const ring = order.length <= 1 ? 0 : Math.max(radii[0]!, radii.reduce((s, r) => s + 2 * r + SPACING, 0) / (2 * Math.PI));
  const extent = ring + Math.max(...radii, SPACING);
  const scale = size / 2 / extent;
  const at = new Map<string, Placed>();
  const centres: Array<{ key: string; x: number; y: number; r: number }> = [];
  let angle = -Math.PI / 2;
  const total = radii.reduce((s, r) => s + 2 * r + SPACING, 0);
  order.forEach(([key, members], group) => {
    const share = ((2 * radii[group]! + SPACING) / total) * 2 * Math.PI;
    const a = angle + share / 2;
    angle += share;
    const cx = size / 2 + Math.cos(a) * ring * scale;
    const cy = size / 2 + Math.sin(a) * ring * scale;
    centres.push({ key, x: cx, y: cy, r: radii[group]! * scale });
    [...members].sort((m, n) => n.degree - m.degree || (m.id < n.id ? -1 : 1)).forEach((m, i) => {
      const r = SPACING * Math.sqrt(i + 0.5) * scale;
      at.set(m.id, { x: cx + Math.cos(i * GOLDEN) * r, y: cy + Math.sin(i * GOLDEN) * r, group });
    });
  });
  return { at, centres };
}
