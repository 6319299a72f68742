export * from "./agent.ts";
