/** @jsxImportSource preact */
/**
 * A few line icons drawn for the console on a 24-unit grid (strokes only, currentColor), so they
 * follow the text colour in both themes. Decorative: the text beside them carries the meaning.
 */
const PATHS: Record<string, string> = {
  inbox: "M3 13h5l1.5 3h5L16 13h5M5 5h14l2 8v6H3v-6z",
  approvals: "M9 12l2 2 4-4M12 3l7 3v6c0 4-3 7.5-7 9-4-1.5-7-5-7-9V6z",
  connections: "M8 11a3 3 0 1 0 0-6 3 3 0 0 0 0 6zM2 20c0-3.5 2.7-6 6-6s6 2.5 6 6M16 11a3 3 0 1 0 0-6M18 14c2.3.6 4 2.9 4 6",
  send: "M4 12l16-8-6 16-2.5-6.5z M11.5 13.5L20 4",
  rules: "M13 3L5 14h6l-1 7 8-11h-6z",
  policy: "M4 6h10M18 6h2M4 12h4M12 12h8M4 18h12M20 18h0M16 4v4M10 10v4M18 16v4",
  profile: "M12 12a4 4 0 1 0 0-8 4 4 0 0 0 0 8zM4 21c0-4 3.6-7 8-7s8 3 8 7",
  discovery: "M12 21a9 9 0 1 0 0-18 9 9 0 0 0 0 18zM3 12h18M12 3c2.5 2.5 3.5 5.5 3.5 9s-1 6.5-3.5 9c-2.5-2.5-3.5-5.5-3.5-9S9.5 5.5 12 3z",
  status: "M3 12h4l3-7 4 14 3-7h4",
  threads: "M4 5h16v10H9l-5 4z",
  extensions: "M4 4h7v7H4zM13 4h7v7h-7zM4 13h7v7H4zM16.5 13v7M13 16.5h7",
  marketplace: "M4 9l1.5-5h13L20 9M4 9v11h16V9M4 9c0 1.7 1.8 3 4 3s4-1.3 4-3c0 1.7 1.8 3 4 3s4-1.3 4-3M10 20v-5h4v5",
  network: "M6 7a2 2 0 1 0 0-4 2 2 0 0 0 0 4zM18 9a2 2 0 1 0 0-4 2 2 0 0 0 0 4zM9 21a2 2 0 1 0 0-4 2 2 0 0 0 0 4zM7.5 6.5l8.6 1M6.6 7l2 10M17 8.7l-6.7 9.3",
  mailboxes: "M4 10a4 4 0 0 1 8 0v10H4zM12 10h8v10h-8M8 10h0M16 4v6M16 4h3v2h-3",
  menu: "M4 7h16M4 12h16M4 17h16",
  close: "M6 6l12 12M18 6L6 18",
  out: "M15 4h4v16h-4M10 8l-4 4 4 4M6 12h10",
};

export function Icon({ name, size = 20 }: { name: string; size?: number }) {
  return (
    <svg class="icon" width={size} height={size} viewBox="0 0 24 24" fill="none" stroke="currentColor" stroke-width="1.8" stroke-linecap="round" stroke-linejoin="round" aria-hidden="true" focusable="false">
      <path d={PATHS[name] ?? ""} />
    </svg>
  );
}
