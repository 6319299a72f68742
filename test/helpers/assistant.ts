import { runAssistantOnce } from "../../src/jobs/assistant.ts";
import type { TestNode } from "./boot.ts";

/** Runs the after-commit assistant job once (rules, then relationships), as the node's worker would. */
export function runAssistantJob(node: TestNode): { messages: number; events: number } {
  return runAssistantOnce(node.ctx({ kind: "system", job: "assistant" }));
}
