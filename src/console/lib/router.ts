import { useEffect, useState } from "preact/hooks";

/**
 * Hash routes (`#/inbox`, `#/threads/<id>`): the node serves one page at /console, so any route
 * survives a reload or a bookmark with no server fallback, also behind a proxy.
 */
export interface Route {
  /** First path segment: the screen. */
  screen: string;
  /** Remaining segments (ids). */
  rest: string[];
  query: URLSearchParams;
}

export function parseRoute(hash: string): Route {
  const [path = "", query = ""] = hash.replace(/^#\/?/, "").split("?");
  const [screen = "", ...rest] = path.split("/").filter(Boolean).map(decodeURIComponent);
  return { screen, rest, query: new URLSearchParams(query) };
}

export function useRoute(): Route {
  const [hash, setHash] = useState(location.hash);
  useEffect(() => {
    const on = () => setHash(location.hash);
    addEventListener("hashchange", on);
    return () => removeEventListener("hashchange", on);
  }, []);
  return parseRoute(hash);
}

/** `href` for a screen: link("threads", id) → "#/threads/<id>". */
export function link(screen: string, ...rest: Array<string | null | undefined>): string {
  return `#/${[screen, ...rest.filter((s): s is string => !!s)].map(encodeURIComponent).join("/")}`;
}

export function go(href: string): void {
  location.hash = href.replace(/^#/, "");
}
