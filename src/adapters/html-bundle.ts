import type { HTMLBundle } from "bun";
import { basename } from "node:path";

export interface BundleFile {
  /** The file's name as the page references it (content-hashed, e.g. chunk-3k9x.js). */
  name: string;
  bytes: Uint8Array<ArrayBuffer>;
}

export interface BundleFiles {
  files: BundleFile[];
  /** Pre-built into the compiled binary (true) or built here from the checkout's sources (false). */
  embedded: boolean;
}

/**
 * The files of a Bun HTML import (the owner console, src/console/index.html). In the compiled
 * binary they come pre-built and embedded in the executable (nothing beside it is read); under
 * `bun src/main.ts` the import is only the entry's path, so it is built here (a few ms, once).
 */
export async function readHtmlBundle(bundle: HTMLBundle): Promise<BundleFiles> {
  if (bundle.files) {
    const files = await Promise.all(bundle.files.map(async (f) => ({ name: basename(f.path), bytes: new Uint8Array(await Bun.file(f.path).arrayBuffer()) })));
    return { files, embedded: true };
  }
  const result = await Bun.build({ entrypoints: [bundle.index], minify: true, define: { "process.env.NODE_ENV": '"production"' } });
  if (!result.success) throw new Error(`console build failed: ${result.logs.map(String).join("; ")}`);
  const files = await Promise.all(result.outputs.map(async (o) => ({ name: basename(o.path), bytes: new Uint8Array(await o.arrayBuffer()) })));
  return { files, embedded: false };
}
