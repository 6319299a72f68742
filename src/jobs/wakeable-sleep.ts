/**
 * The idle wait of a polling job: `sleep(ms)` resolves after `ms` or at the next `wake()`,
 * whichever comes first (a wake with nobody asleep is a no-op; the loop looks again anyway).
 */
export function wakeableSleep(): { sleep(ms: number): Promise<void>; wake(): void } {
  let wakeUp: (() => void) | null = null;
  let timer: ReturnType<typeof setTimeout> | null = null;
  return {
    sleep: (ms) =>
      new Promise<void>((resolve) => {
        wakeUp = resolve;
        timer = setTimeout(resolve, Math.max(0, ms));
      }).finally(() => {
        if (timer) clearTimeout(timer);
        timer = null;
        wakeUp = null;
      }),
    wake: () => wakeUp?.(),
  };
}
