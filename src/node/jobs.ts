import type { Actor, Collaborators, Ctx, Logger, Metrics, Wake } from "../domain/context.ts";
import { startAssistantJob } from "../jobs/assistant.ts";
import { startDirectoryPusher } from "../jobs/directory-pusher.ts";
import { startDirectoryRevalidator } from "../jobs/directory-revalidator.ts";
import { startMailboxDrain } from "../jobs/mailbox-drain.ts";
import { startMaintenance } from "../jobs/maintenance.ts";
import { startNetworkAnalytics } from "../jobs/network-analytics.ts";
import { startOutboxWorker } from "../jobs/outbox-worker.ts";

export interface Jobs {
  /** Starts them (once; `kith serve` does, tests drive the same verbs by hand); `onFailure` if they cannot start. */
  start(onFailure?: (cause: unknown) => void): void;
  /** Wakes a job that drains a queue (after a commit that queued something); nothing while stopped. */
  wake(job: keyof Wake): void;
  /** Stops every job; deliveries and pushes in flight settle (or stay queued) first. */
  stop(): Promise<void>;
}

/** The node's background jobs, started, each with a `system` actor of its own name. */
export function startJobs(ctx: (actor: Actor) => Ctx & Collaborators, log: Logger, metrics?: Metrics): Omit<Jobs, "start"> {
  const as = (job: string) => () => ctx({ kind: "system", job });
  const outbox = startOutboxWorker({ ctx: as("outbox"), log, ...(metrics ? { metrics } : {}) });
  const maintenance = startMaintenance({ ctx: as("maintenance"), log });
  const assistant = startAssistantJob({ ctx: as("assistant"), log });
  const pusher = startDirectoryPusher({ ctx: as("directory-pusher"), log });
  const revalidator = startDirectoryRevalidator({ ctx: as("directory-revalidator"), log });
  const network = startNetworkAnalytics({ ctx: as("network-analytics"), log });
  // A home node without a public address collects what its mailbox holds (KITH_MAILBOX_URL).
  const mailbox = as("mailbox")().node.mailboxUrl ? startMailboxDrain({ ctx: as("mailbox"), log }) : null;
  return {
    wake(job) {
      if (job === "outbox") outbox.wake();
      else pusher.wake();
    },
    async stop() {
      maintenance.stop();
      await assistant.stop();
      await outbox.stop();
      await pusher.stop();
      await revalidator.stop();
      await network.stop();
      await mailbox?.stop();
    },
  };
}
