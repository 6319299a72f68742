import type { NodeConfig } from "../config.ts";
import { classifyHost } from "../ink/index.ts";

/** What `kith serve` warns about at start: settings that work, but not as one may expect. */
export function startWarnings(config: Pick<NodeConfig, "allowPrivatePeers" | "directories">): string[] {
  if (config.allowPrivatePeers) return ["KITH_ALLOW_PRIVATE_PEERS is set: peers on private and loopback addresses are allowed (tests and home LANs only)"];
  // The SSRF gate refuses these on every push: say so now rather than in a failed job later.
  return config.directories
    .filter((url) => classifyHost(new URL(url).hostname) !== "public")
    .map((url) => `KITH_DIRECTORIES: ${url} is a loopback, private or special-use address; publishing there fails unless KITH_ALLOW_PRIVATE_PEERS=1`);
}
