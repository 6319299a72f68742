import type { FederationDeps } from "../federation/deps.ts";

/** What the discovery verbs need besides `ctx`: federation's collaborators and the directory settings. */
export interface DiscoveryDeps {
  federation: FederationDeps;
  /** KITH_DIRECTORIES: the directories this node publishes to (https base or card URLs). */
  directories: readonly string[];
  /** KITH_DIRECTORY_REVALIDATE_SECONDS, in ms: how often remote listings are re-checked. */
  revalidateMs: number;
  /** Nudges the directory pusher after a commit that queued pushes. */
  wakePusher(): void;
}

/** Six hours: how often a directory re-fetches the cards of its remote listings by default. */
export const DEFAULT_REVALIDATE_MS = 6 * 60 * 60 * 1000;
