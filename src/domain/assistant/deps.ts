import type { LlmClient, Transcriber } from "../../adapters/llm.ts";

/** What the AI-backed verbs need: each backend is null when not configured. */
export interface AssistantDeps {
  /** KITH_LLM_URL: drafts and summaries; without it the deterministic built-in answers. */
  llm: LlmClient | null;
  /** KITH_TRANSCRIBE_URL: transcription; without it the route answers 503. */
  transcriber: Transcriber | null;
}

/** Which backend produced an answer, and why the built-in did when an LLM is configured. */
export interface BackendInfo {
  backend: "llm" | "builtin";
  model?: string;
  fallbackReason?: string;
}
