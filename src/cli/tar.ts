import { createReadStream, statSync } from "node:fs";

/**
 * Just enough POSIX ustar for Kith backups: regular files with short names, written and read as
 * streams. Anything else in an archive is refused.
 */
const BLOCK = 512;

export async function* tarEntries(files: Array<{ name: string; path: string; mtimeMs: number }>): AsyncGenerator<Uint8Array> {
  for (const file of files) {
    const size = statSync(file.path).size;
    yield tarHeader(file.name, size, file.mtimeMs);
    for await (const chunk of createReadStream(file.path)) yield chunk as Uint8Array;
    const pad = (BLOCK - (size % BLOCK)) % BLOCK;
    if (pad) yield new Uint8Array(pad);
  }
  yield new Uint8Array(BLOCK * 2);
}

export interface TarEntry {
  name: string;
  size: number;
}

export interface TarSink {
  write(chunk: Uint8Array): void;
  /** All `size` bytes were written. */
  end(): void;
}

/**
 * Reads a tar stream (e.g. straight out of gunzip) entry by entry, without a temporary file.
 * `onEntry` sees each header before any of its content is read and returns the sink for it (or
 * throws to refuse it); content is read only up to the declared size, and reading stops at the end
 * marker. So the caller bounds every byte decompressed: a size it refuses is never inflated.
 */
export async function readTarStream(source: AsyncIterable<Uint8Array>, onEntry: (entry: TarEntry) => TarSink): Promise<void> {
  const reader = new ByteReader(source[Symbol.asyncIterator]());
  for (;;) {
    const block = await reader.exactly(BLOCK);
    if (block === null) throw new Error("corrupt archive: missing end marker");
    if (block.every((b) => b === 0)) return;
    if (!checksumOk(block)) throw new Error("corrupt archive: bad header checksum");
    const name = text(block, 0, 100);
    const sizeField = text(block, 124, 12).trim();
    const size = /^[0-7]{1,11}$/.test(sizeField) ? parseInt(sizeField, 8) : NaN;
    const type = String.fromCharCode(block[156]!);
    if ((type !== "0" && type !== "\0") || !Number.isSafeInteger(size)) throw new Error(`unsupported archive entry ${JSON.stringify(name)}`);
    const sink = onEntry({ name, size });
    let left = size;
    while (left > 0) {
      const chunk = await reader.upTo(Math.min(left, 1 << 20));
      if (chunk === null) throw new Error("corrupt archive: truncated");
      sink.write(chunk);
      left -= chunk.length;
    }
    sink.end();
    const pad = (BLOCK - (size % BLOCK)) % BLOCK;
    if (pad > 0 && (await reader.exactly(pad)) === null) throw new Error("corrupt archive: truncated");
  }
}

/** Pulls byte ranges out of a chunked stream. */
class ByteReader {
  private buffer: Uint8Array = new Uint8Array(0);
  constructor(private readonly source: AsyncIterator<Uint8Array>) {}

  /** Exactly `n` bytes, or null when the stream ends first. */
  async exactly(n: number): Promise<Uint8Array | null> {
    while (this.buffer.length < n) if (!(await this.fill())) return null;
    return this.take(n);
  }

  /** Between 1 and `n` bytes, or null at the end of the stream. */
  async upTo(n: number): Promise<Uint8Array | null> {
    if (this.buffer.length === 0 && !(await this.fill())) return null;
    return this.take(Math.min(n, this.buffer.length));
  }

  private take(n: number): Uint8Array {
    const out = this.buffer.slice(0, n);
    this.buffer = this.buffer.subarray(n);
    return out;
  }

  private async fill(): Promise<boolean> {
    const next = await this.source.next();
    if (next.done) return false;
    if (this.buffer.length === 0) {
      this.buffer = next.value;
      return true;
    }
    const merged = new Uint8Array(this.buffer.length + next.value.length);
    merged.set(this.buffer);
    merged.set(next.value, this.buffer.length);
    this.buffer = merged;
    return true;
  }
}

/** One ustar header block for a regular file (mode 0600). */
export function tarHeader(name: string, size: number, mtimeMs: number): Uint8Array {
  if (name.length > 99 || !/^[A-Za-z0-9._-]+$/.test(name)) throw new Error(`bad archive entry name ${name}`);
  const h = new Uint8Array(BLOCK);
  put(h, 0, name);
  put(h, 100, "0000600\0");
  put(h, 108, "0000000\0");
  put(h, 116, "0000000\0");
  put(h, 124, size.toString(8).padStart(11, "0") + "\0");
  put(h, 136, Math.floor(mtimeMs / 1000).toString(8).padStart(11, "0") + "\0");
  put(h, 148, "        ");
  put(h, 156, "0");
  put(h, 257, "ustar\0");
  put(h, 263, "00");
  const sum = h.reduce((a, b) => a + b, 0);
  put(h, 148, sum.toString(8).padStart(6, "0") + "\0 ");
  return h;
}

function checksumOk(block: Uint8Array): boolean {
  const stored = parseInt(text(block, 148, 8).trim(), 8);
  let sum = 0;
  for (let i = 0; i < BLOCK; i++) sum += i >= 148 && i < 156 ? 32 : block[i]!;
  return stored === sum;
}

function put(target: Uint8Array, offset: number, value: string): void {
  for (let i = 0; i < value.length; i++) target[offset + i] = value.charCodeAt(i);
}

function text(block: Uint8Array, offset: number, length: number): string {
  const slice = block.subarray(offset, offset + length);
  const end = slice.indexOf(0);
  return new TextDecoder().decode(end === -1 ? slice : slice.subarray(0, end));
}
