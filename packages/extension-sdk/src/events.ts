// The event feed as an async iterator (notes/EXTENSIONS.md §3.2, §5.2 item 6).
// - At-least-once: the cursor `{streamId, since}` is saved only once every event of a page has
//   been handed out, so a crash mid-page replays that page; events are deduplicated by `id`.
// - Gaps are reported, never hidden: a `gap` in the answer (events pruned before they were read),
//   a changed `streamId` (the node was restored from a backup) or a 400 `since_in_future` call
//   `onGap`, after which the extension should re-read what it mirrors (/connections, …).
// - An empty page waits for the node's Retry-After hint (at least `minPollMs`) before asking again.
import { RequestError } from "./errors.ts";
import type { Transport } from "./transport.ts";
import { defaultSleep } from "./transport.ts";
import type { EventsPage, FeedEvent } from "./types.ts";

export type Cursor = { streamId: string | null; since: number | null };

export type CursorStore = {
  load(): Promise<Cursor | null> | Cursor | null;
  save(cursor: Cursor): Promise<void> | void;
};

export type Gap =
  | { reason: "since_before_retention"; from: number; to: number; streamId: string }
  | { reason: "stream_changed"; previousStreamId: string; streamId: string }
  | { reason: "since_in_future"; since: number; latest: number | null; streamId: string | null }
  | { reason: string; [member: string]: unknown };

export type ListEventsOptions = { since?: number | null; limit?: number; kinds?: string[]; wait?: number; signal?: AbortSignal };

export type StreamOptions = {
  /** Where the cursor lives; without one the stream starts "from now" and keeps it in memory. */
  cursorStore?: CursorStore;
  /** Start here when the store holds nothing (omit for "from now"). */
  since?: number;
  kinds?: string[];
  limit?: number;
  /** Ask the node to hold an empty poll open this many seconds (0–30). */
  wait?: number;
  onGap?: (gap: Gap) => void | Promise<void>;
  signal?: AbortSignal;
  /** Shortest pause after an empty page, in ms (default 5000; the node's Retry-After wins if longer). */
  minPollMs?: number;
  sleep?: (ms: number, signal?: AbortSignal) => Promise<void>;
  /** End the stream at the first empty page (a run that catches up and exits) instead of polling. */
  untilIdle?: boolean;
};

export function memoryCursorStore(initial: Cursor | null = null): CursorStore & { cursor: Cursor | null } {
  const store = {
    cursor: initial,
    load: () => store.cursor,
    save: (c: Cursor) => {
      store.cursor = c;
    },
  };
  return store;
}

/** A cursor kept in a JSON file, written atomically (temp file + rename). Node and Bun. */
export function fileCursorStore(path: string): CursorStore {
  return {
    async load() {
      const fs = await import("node:fs/promises");
      try {
        const value = JSON.parse(await fs.readFile(path, "utf8")) as Cursor;
        return { streamId: value.streamId ?? null, since: typeof value.since === "number" ? value.since : null };
      } catch (err) {
        if ((err as { code?: string }).code === "ENOENT") return null;
        throw err;
      }
    },
    async save(cursor) {
      const fs = await import("node:fs/promises");
      const tmp = `${path}.${process.pid}.tmp`;
      await fs.writeFile(tmp, JSON.stringify(cursor));
      await fs.rename(tmp, path);
    },
  };
}

export async function listEvents(transport: Transport, opts: ListEventsOptions = {}): Promise<EventsPage & { retryAfter: number | null }> {
  const answer = await transport.call("GET", "/ext/v1/events", {
    query: { since: opts.since ?? undefined, limit: opts.limit, kinds: opts.kinds?.join(","), wait: opts.wait },
    ...(opts.signal ? { signal: opts.signal } : {}),
  });
  const retry = answer.headers.get("retry-after");
  return { ...(answer.body as EventsPage), retryAfter: retry !== null && /^\d+$/.test(retry) ? Number(retry) : null };
}

const SEEN_IDS = 2048;

export async function* streamEvents(transport: Transport, opts: StreamOptions = {}): AsyncGenerator<FeedEvent, void, undefined> {
  const store = opts.cursorStore ?? memoryCursorStore();
  const sleep = opts.sleep ?? defaultSleep;
  const stored = await store.load();
  let cursor: Cursor = stored ?? { streamId: null, since: opts.since ?? null };
  const seen = new Set<string>();
  while (!opts.signal?.aborted) {
    let page: Awaited<ReturnType<typeof listEvents>>;
    try {
      page = await listEvents(transport, { since: cursor.since, limit: opts.limit, kinds: opts.kinds, wait: opts.wait, ...(opts.signal ? { signal: opts.signal } : {}) });
    } catch (err) {
      if (opts.signal?.aborted) return;
      if (err instanceof RequestError && err.code === "since_in_future" && cursor.since !== null) {
        const latest = typeof err.body?.latest === "number" ? err.body.latest : null;
        const streamId = typeof err.body?.streamId === "string" ? err.body.streamId : null;
        await opts.onGap?.({ reason: "since_in_future", since: cursor.since, latest, streamId });
        cursor = { streamId, since: latest };
        await store.save(cursor);
        continue;
      }
      throw err;
    }
    if (cursor.streamId !== null && page.streamId !== cursor.streamId) {
      await opts.onGap?.({ reason: "stream_changed", previousStreamId: cursor.streamId, streamId: page.streamId });
    }
    if (page.gap) await opts.onGap?.({ ...page.gap, streamId: page.streamId });
    for (const event of page.events ?? []) {
      if (seen.has(event.id)) continue;
      seen.add(event.id);
      if (seen.size > SEEN_IDS) seen.delete(seen.values().next().value as string);
      yield event;
      if (opts.signal?.aborted) break;
    }
    if (opts.signal?.aborted) {
      // Stopped mid-page: keep the old cursor so the unseen rest of the page comes again.
      return;
    }
    cursor = { streamId: page.streamId, since: page.nextSince };
    await store.save(cursor);
    if (!page.hasMore && (page.events ?? []).length === 0) {
      if (opts.untilIdle) return;
      const wait = Math.max(opts.minPollMs ?? 5000, (page.retryAfter ?? 0) * 1000);
      try {
        await sleep(wait, opts.signal);
      } catch {
        return;
      }
    }
  }
}
