/** Which backend produced an answer, and why the built-in did when an LLM is configured. */
export interface BackendInfo {
  backend: "llm" | "builtin";
  model?: string;
  fallbackReason?: string;
}
