import { fstatSync, readlinkSync, writeSync } from "node:fs";

/** Descriptors that once could not take a line synchronously: from then on, the stream, so lines stay in order. */
const viaStream = new Set<number>();
/** Descriptors already judged (see direct). */
const judged = new Set<number>();

/**
 * Only a file or a character device (a terminal, /dev/null) is written directly. A pipe or a
 * socket (`kith serve | tee`, journald's stream socket, a container's log driver) can be blocking:
 * a reader that falls behind would stop the event loop inside writeSync, and with it every request
 * and the SIGTERM handler. Those get the stream, which buffers, as before.
 */
function direct(fd: number): boolean {
  if (!judged.has(fd)) {
    judged.add(fd);
    try {
      const stat = fstatSync(fd);
      if (!stat.isFile() && !stat.isCharacterDevice()) viaStream.add(fd);
    } catch {
      viaStream.add(fd);
    }
  }
  return !viaStream.has(fd);
}

/**
 * One line to standard output (fd 1) or error (fd 2). To a file or a terminal, written
 * synchronously, as Node writes to them: not through process.stdout/stderr, which Bun builds on
 * first use (3-9 ms of every `kith serve` start). To a pipe or a socket, through the stream (see
 * direct). A descriptor that fails gets the rest, and every later line, through the stream.
 */
export function writeLine(fd: 1 | 2, line: string): void {
  const text = `${line}\n`;
  let rest: Uint8Array | string = text;
  if (direct(fd)) {
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
