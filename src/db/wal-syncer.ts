import { closeSync, fsync, openSync } from "node:fs";

/**
 * fsync of the WAL file off the event loop, coalesced: callers that arrive while an fsync runs
 * share the next one, which starts after the running one ends (so it covers their commits).
 */
export function walSyncer(walFile: string) {
  let fd: number | null = null;
  let running: Promise<void> | null = null;
  let next: Promise<void> | null = null;
  const syncOnce = () =>
    new Promise<void>((resolve, reject) => {
      try {
        fd ??= openSync(walFile, "r"); // fsync flushes the file, whichever descriptor wrote it
      } catch (e) {
        reject(e);
        return;
      }
      fsync(fd, (err) => (err ? reject(err) : resolve()));
    });
  return {
    close() {
      if (fd !== null) closeSync(fd);
      fd = null;
    },
    /** The fsync running now, if any. */
    inFlight(): Promise<void> | null {
      return running;
    },
    syncAfterNow(): Promise<void> {
      if (!running) {
        running = syncOnce().finally(() => (running = null));
        return running;
      }
      next ??= running.then(
        () => {
          next = null;
          return this.syncAfterNow();
        },
        () => {
          next = null;
          return this.syncAfterNow();
        },
      );
      return next;
    },
  };
}
