/**
 * Wakes a mailbox's waiting drain when an item arrives (in memory: a restart only ends the waits,
 * and the home's next drain finds what was stored).
 */
export function mailboxSignal() {
  const waiting = new Map<string, Set<() => void>>();
  return {
    notify(grantId: string): void {
      const set = waiting.get(grantId);
      if (!set) return;
      waiting.delete(grantId);
      for (const wake of set) wake();
    },
    wait(grantId: string, ms: number, abort?: AbortSignal): Promise<void> {
      return new Promise((resolve) => {
        let set = waiting.get(grantId);
        if (!set) waiting.set(grantId, (set = new Set()));
        const done = () => {
          clearTimeout(timer);
          abort?.removeEventListener("abort", done);
          set!.delete(done);
          if (set!.size === 0 && waiting.get(grantId) === set) waiting.delete(grantId);
          resolve();
        };
        const timer = setTimeout(done, ms);
        abort?.addEventListener("abort", done);
        set.add(done);
      });
    },
  };
}
