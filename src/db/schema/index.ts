export * from "./agent.ts";
export * from "./rate-limits.ts";
export * from "./peers.ts";
export * from "./connections.ts";
export * from "./messages.ts";
export * from "./approvals.ts";
export * from "./outbox.ts";
export * from "./policy.ts";
