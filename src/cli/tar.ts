import { closeSync, createReadStream, openSync, readSync, statSync } from "node:fs";

/**
 * Just enough POSIX ustar for Kith backups: regular files with short names, written as a stream,
 * read back from an uncompressed file by offset. Anything else in an archive is refused.
 */
const BLOCK = 512;

export async function* tarEntries(files: Array<{ name: string; path: string; mtimeMs: number }>): AsyncGenerator<Uint8Array> {
  for (const file of files) {
    const size = statSync(file.path).size;
    yield header(file.name, size, file.mtimeMs);
    for await (const chunk of createReadStream(file.path)) yield chunk as Uint8Array;
    const pad = (BLOCK - (size % BLOCK)) % BLOCK;
    if (pad) yield new Uint8Array(pad);
  }
  yield new Uint8Array(BLOCK * 2);
}

export interface TarEntry {
  name: string;
  size: number;
  /** Byte offset of the content in the tar file. */
  offset: number;
}

/** Lists the regular-file entries of an uncompressed tar file; throws on anything unexpected. */
export function listTar(path: string): TarEntry[] {
  const fd = openSync(path, "r");
  try {
    const total = statSync(path).size;
    const entries: TarEntry[] = [];
    const block = new Uint8Array(BLOCK);
    let pos = 0;
    while (pos + BLOCK <= total) {
      readSync(fd, block, 0, BLOCK, pos);
      if (block.every((b) => b === 0)) return entries;
      if (!checksumOk(block)) throw new Error("corrupt archive: bad header checksum");
      const name = text(block, 0, 100);
      const size = parseInt(text(block, 124, 12).trim() || "0", 8);
      const type = String.fromCharCode(block[156]!);
      if ((type !== "0" && type !== "\0") || !Number.isSafeInteger(size) || size < 0) throw new Error(`unsupported archive entry ${JSON.stringify(name)}`);
      if (pos + BLOCK + size > total) throw new Error("corrupt archive: truncated");
      entries.push({ name, size, offset: pos + BLOCK });
      pos += BLOCK + Math.ceil(size / BLOCK) * BLOCK;
    }
    throw new Error("corrupt archive: missing end marker");
  } finally {
    closeSync(fd);
  }
}

export function readTarEntry(path: string, entry: TarEntry, onChunk: (chunk: Uint8Array) => void): void {
  const fd = openSync(path, "r");
  try {
    const buffer = new Uint8Array(1 << 20);
    let done = 0;
    while (done < entry.size) {
      const n = readSync(fd, buffer, 0, Math.min(buffer.length, entry.size - done), entry.offset + done);
      if (n <= 0) throw new Error("corrupt archive: short read");
      onChunk(buffer.subarray(0, n));
      done += n;
    }
  } finally {
    closeSync(fd);
  }
}

function header(name: string, size: number, mtimeMs: number): Uint8Array {
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
