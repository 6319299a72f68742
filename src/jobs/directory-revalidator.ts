import type { Logger, With } from "../domain/context.ts";
import { refreshOwnListing } from "../domain/discovery/refresh-own-listing.ts";
import { REVALIDATION_BATCH, revalidateListings } from "../domain/discovery/revalidate-listings.ts";

export interface DirectoryRevalidator {
  /** One pass: every due remote listing, then the node's own listing. Tests call this. */
  runOnce(): Promise<void>;
  stop(): Promise<void>;
}

const MAX_TICK_MS = 60_000;

/**
 * Re-validates the directory's remote listings when due (KITH_DIRECTORY_REVALIDATE_SECONDS after
 * the last check, sooner after a network failure) and keeps the own listing in step with the
 * profile. Ticks every minute, or every re-validation period when that is shorter.
 */
export function startDirectoryRevalidator(options: { ctx: () => With<"node" | "vault" | "peers" | "directory" | "wake">; log: Logger; everyMs?: number }): DirectoryRevalidator {
  const every = options.everyMs ?? Math.min(MAX_TICK_MS, options.ctx().directory.revalidateMs);
  let current: Promise<void> | null = null;
  const runOnce = (): Promise<void> => {
    current ??= (async () => {
      try {
        // A pass handles at most one batch; keep going while whole batches were due.
        for (let i = 0; i < 20; i++) {
          const report = await revalidateListings(options.ctx());
          if (report.checked < REVALIDATION_BATCH) break;
        }
        refreshOwnListing(options.ctx());
      } catch (e) {
        options.log.error("directory re-validation failed", { cause: e });
      }
    })().finally(() => {
      current = null;
    });
    return current;
  };
  const handle = setInterval(() => void runOnce(), every);
  handle.unref?.();
  return {
    runOnce,
    async stop() {
      clearInterval(handle);
      await current;
    },
  };
}
