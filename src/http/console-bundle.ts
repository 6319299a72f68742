/** What the console surface is built from: the files of its HTML import (src/adapters/html-bundle.ts reads them). */
export interface ConsoleFiles {
  files: Array<{ name: string; bytes: Uint8Array<ArrayBuffer> }>;
  /** Pre-built into the compiled binary, or built from the checkout's sources. */
  embedded: boolean;
}

export interface ConsoleAsset {
  body: Uint8Array<ArrayBuffer>;
  gzip: Uint8Array<ArrayBuffer>;
  type: string;
  etag: string;
}

export interface ConsoleBundle {
  page: ConsoleAsset;
  /** The page's scripts and styles by file name (content-hashed, e.g. chunk-3k9x.js). */
  assets: Map<string, ConsoleAsset>;
}

const TYPES: Record<string, string> = {
  ".js": "text/javascript; charset=utf-8",
  ".css": "text/css; charset=utf-8",
  ".html": "text/html; charset=utf-8",
  ".svg": "image/svg+xml",
  ".png": "image/png",
};

/**
 * The console's files ready to serve, in memory and gzipped once. The page's references are
 * rewritten from the site root, where Bun would serve them itself, to `assetPath`
 * (notes/EXTENSIONS.md §4.5), so the console owns one path prefix and its headers.
 */
export function consoleBundleOf({ files, embedded }: ConsoleFiles, assetPath: string): ConsoleBundle {
  const page = files.find((f) => f.name.endsWith(".html"));
  if (!page) throw new Error("the console bundle has no HTML page");
  const assets = new Map<string, ConsoleAsset>();
  let html = new TextDecoder().decode(page.bytes);
  for (const f of files) {
    if (f === page) continue;
    assets.set(f.name, asset(f.name, f.bytes));
    // Bun writes either "./chunk-x.js" (Bun.build) or "/chunk-x.js" (compiled) into the page.
    html = html.replaceAll(`"./${f.name}"`, `"${assetPath}/${f.name}"`).replaceAll(`"/${f.name}"`, `"${assetPath}/${f.name}"`);
  }
  // The sign-in page shows how to run `kith owner code` for this node: a binary, or a checkout.
  html = html.replace("</head>", `<meta name="kith-runtime" content="${embedded ? "binary" : "checkout"}"></head>`);
  return { page: asset(page.name, new TextEncoder().encode(html)), assets };
}

function asset(name: string, body: Uint8Array<ArrayBuffer>): ConsoleAsset {
  const ext = name.slice(name.lastIndexOf("."));
  const hash = new Bun.CryptoHasher("sha256").update(body).digest("base64url").slice(0, 22);
  return { body, gzip: Bun.gzipSync(body, { level: 9 }), type: TYPES[ext] ?? "application/octet-stream", etag: `"${hash}"` };
}
