/**
 * Reads a body of at most `max` bytes: null when it is larger, without reading the rest (a
 * declared Content-Length over the cap is refused before reading anything). Every body the node
 * reads from the network goes through this: inbound signed requests, peer responses, provider
 * responses.
 */
export async function readBounded(body: ReadableStream<Uint8Array> | null, max: number, declaredLength?: string | null): Promise<Uint8Array | null> {
  if (declaredLength && /^\d+$/.test(declaredLength) && Number(declaredLength) > max) {
    await body?.cancel().catch(() => {});
    return null;
  }
  if (!body) return new Uint8Array(0);
  const reader = body.getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    size += value.byteLength;
    if (size > max) {
      await reader.cancel().catch(() => {});
      return null;
    }
    chunks.push(value);
  }
  const out = new Uint8Array(size);
  let at = 0;
  for (const c of chunks) {
    out.set(c, at);
    at += c.byteLength;
  }
  return out;
}
