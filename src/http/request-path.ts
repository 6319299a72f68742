/**
 * The path of a request's URL without parsing it again. A Request's `url` is already a
 * serialized WHATWG URL when it is absolute (Bun builds it from the request line and Host, dot
 * segments resolved and bytes percent-encoded), so its path is the text from the first `/` after
 * the authority to the first `?` or `#`: exactly what `new URL(url).pathname` returns, at a
 * fraction of the cost (a URL parse per request line). Null for a relative URL (Bun gives one when
 * the Host header is missing or unusable): callers parse those as they always did.
 */
export function serializedPath(url: string): string | null {
  const scheme = url.startsWith("https://") ? 8 : url.startsWith("http://") ? 7 : 0;
  if (scheme === 0) return null;
  const start = url.indexOf("/", scheme);
  if (start < 0) return "/";
  let end = url.length;
  const query = url.indexOf("?", start);
  if (query >= 0) end = query;
  const fragment = url.indexOf("#", start);
  if (fragment >= 0 && fragment < end) end = fragment;
  return url.slice(start, end);
}
