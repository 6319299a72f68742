export * from "./agent.ts";
export * from "./rate-limits.ts";
export * from "./owner-codes.ts";
export * from "./oauth-states.ts";
export * from "./owner-sessions.ts";
