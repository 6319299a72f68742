import { readlinkSync, writeSync } from "node:fs";

/** Descriptors that once could not take a line synchronously: from then on, the stream, so lines stay in order. */
const viaStream = new Set<number>();

/**
 * One line to standard output (fd 1) or error (fd 2), written synchronously, as Node writes to
 * files, pipes and terminals on Linux. Not through process.stdout/stderr: Bun builds those Node
 * streams on first use, 3-9 ms of every `kith serve` start. A descriptor that cannot take the line
 * now (a non-blocking pipe that is full) or fails gets the rest, and every later line, through the
 * stream as before.
 */
export function writeLine(fd: 1 | 2, line: string): void {
  const text = `${line}\n`;
  let rest: Uint8Array | string = text;
  if (!viaStream.has(fd)) {
    try {
      // The string as is (no Buffer per line: the node logs every request); a short write leaves bytes.
      const written = writeSync(fd, text);
      if (written === Buffer.byteLength(text)) return;
      const bytes = Buffer.from(text);
      let at = written;
      rest = bytes.subarray(at);
      while (at < bytes.length) {
        at += writeSync(fd, bytes, at);
        rest = bytes.subarray(at);
      }
      return;
    } catch {
      viaStream.add(fd);
    }
  }
  (fd === 1 ? process.stdout : process.stderr).write(rest);
}

/** Whether standard output is a terminal, without building process.stdout (see writeLine). */
export function stdoutIsTerminal(): boolean {
  try {
    return /^\/dev\/(pts\/|tty|console$)/.test(readlinkSync("/proc/self/fd/1"));
  } catch {
    return process.stdout.isTTY === true; // no /proc (not Linux)
  }
}
