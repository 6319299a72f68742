export * from "./agent.ts";
export * from "./rate-limits.ts";
