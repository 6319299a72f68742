import { afterEach } from "bun:test";

/**
 * Registers an afterEach that stops everything handed to the returned `keep` during the test
 * (network nodes, fake peers, servers), in parallel, then forgets them. Call once per test file.
 * @example const keep = stopAfterEach(); const dir = keep(await bootNetworkNode({ name: "dir" }));
 */
export function stopAfterEach(): <T extends { stop(): unknown }>(thing: T) => T {
  let things: Array<{ stop(): unknown }> = [];
  afterEach(async () => {
    const stopping = things;
    things = [];
    await Promise.all(stopping.map((t) => t.stop()));
  });
  return (thing) => {
    things.push(thing);
    return thing;
  };
}
