import type { FunctionComponent } from "preact";
import type { Route } from "./lib/router.ts";
import { Approvals } from "./screens/approvals.tsx";
import { Compose } from "./screens/compose.tsx";
import { Connections } from "./screens/connections.tsx";
import { Extensions } from "./screens/extensions.tsx";
import { Marketplace } from "./screens/marketplace.tsx";
import { Network } from "./screens/network.tsx";
import { Mailboxes } from "./screens/mailboxes.tsx";
import { Discovery } from "./screens/discovery.tsx";
import { Inbox } from "./screens/inbox.tsx";
import { Policy } from "./screens/policy.tsx";
import { Profile } from "./screens/profile.tsx";
import { Rules } from "./screens/rules.tsx";
import { Status } from "./screens/status.tsx";
import { Threads } from "./screens/threads.tsx";

export interface Screen {
  /** The route's first segment (`#/<id>/…`). */
  id: string;
  label: string;
  icon: string;
  group: "Messages" | "People" | "Agent" | "Node";
  component: FunctionComponent<{ route: Route }>;
  /** A count shown beside the entry (from the shell's live counters). */
  badge?: "unread" | "pending";
}

/**
 * Every screen of the console, in menu order. A new screen is one entry here plus its file in
 * screens/, built from ui/kit.tsx. The extension audit trail has no owner route yet (issue 17).
 */
export const SCREENS: Screen[] = [
  { id: "inbox", label: "Inbox", icon: "inbox", group: "Messages", component: Inbox, badge: "unread" },
  { id: "approvals", label: "Approvals", icon: "approvals", group: "Messages", component: Approvals, badge: "pending" },
  { id: "threads", label: "Threads", icon: "threads", group: "Messages", component: Threads },
  { id: "send", label: "Send", icon: "send", group: "Messages", component: Compose },
  { id: "connections", label: "Connections", icon: "connections", group: "People", component: Connections },
  { id: "discovery", label: "Discovery", icon: "discovery", group: "People", component: Discovery },
  { id: "network", label: "Network", icon: "network", group: "People", component: Network },
  { id: "rules", label: "Automation", icon: "rules", group: "Agent", component: Rules },
  { id: "policy", label: "Autonomy", icon: "policy", group: "Agent", component: Policy },
  { id: "profile", label: "Profile", icon: "profile", group: "Agent", component: Profile },
  { id: "extensions", label: "Extensions", icon: "extensions", group: "Node", component: Extensions },
  { id: "marketplace", label: "Marketplace", icon: "marketplace", group: "Node", component: Marketplace },
  { id: "mailboxes", label: "Mailboxes", icon: "mailboxes", group: "Node", component: Mailboxes },
  { id: "status", label: "Node status", icon: "status", group: "Node", component: Status },
];

export const GROUPS = ["Messages", "People", "Agent", "Node"] as const;
export const DEFAULT_SCREEN = "inbox";
