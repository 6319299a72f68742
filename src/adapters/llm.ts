import { OutboundError } from "../security/outbound-errors.ts";
import { outboundRequest, type FetchLike } from "./outbound.ts";

/**
 * A small client for an operator-configured OpenAI-compatible API (Ollama, llama.cpp server,
 * vLLM or a hosted one): chat completions and audio transcriptions. The base URL comes from
 * settings (KITH_LLM_URL, KITH_TRANSCRIBE_URL), so the peer SSRF gate does not apply; what does
 * (outbound.ts): a deadline, no redirects, a cap on what is read back. Failures are values.
 */
export interface OpenAiSettings {
  /** Base URL: `http://127.0.0.1:11434/v1` or `https://api.example.com` (then `/v1` is added). */
  url: string;
  model: string;
  apiKey: string | null;
  timeoutMs?: number;
}

export interface ChatMessage {
  role: "system" | "user" | "assistant";
  content: string;
}

export type LlmResult = { ok: true; text: string; model: string } | { ok: false; reason: string };

export interface LlmClient {
  readonly model: string;
  chat(messages: ChatMessage[], options?: { maxTokens?: number; temperature?: number }): Promise<LlmResult>;
}

export interface Transcriber {
  transcribe(audio: Blob, filename: string): Promise<LlmResult>;
}

const CHAT_TIMEOUT_MS = 60_000;
const TRANSCRIBE_TIMEOUT_MS = 120_000;

/** `${base}/v1${path}`, or `${base}${path}` when the base already ends with /v1. */
export function openAiUrl(base: string, path: string): string {
  const trimmed = base.replace(/\/+$/, "");
  return /\/v1$/.test(trimmed) ? `${trimmed}${path}` : `${trimmed}/v1${path}`;
}

export function createLlmClient(settings: OpenAiSettings, options: { fetch?: FetchLike } = {}): LlmClient {
  return {
    model: settings.model,
    async chat(messages, o = {}) {
      const body = { model: settings.model, messages, temperature: o.temperature ?? 0.2, max_tokens: o.maxTokens ?? 800, stream: false };
      const res = await call(openAiUrl(settings.url, "/chat/completions"), { method: "POST", headers: { "content-type": "application/json", ...auth(settings) }, body: JSON.stringify(body) }, settings.timeoutMs ?? CHAT_TIMEOUT_MS, options.fetch);
      if (!res.ok) return res;
      const choice = (res.json.choices as Array<{ message?: { content?: unknown } }> | undefined)?.[0];
      const text = choice?.message?.content;
      if (typeof text !== "string" || text.trim() === "") return { ok: false, reason: "the model returned no message content" };
      return { ok: true, text, model: typeof res.json.model === "string" ? res.json.model : settings.model };
    },
  };
}

/** Forwards a clip as multipart to `/v1/audio/transcriptions` (OpenAI's API shape) and reads `{text}`. */
export function createTranscriber(settings: OpenAiSettings, options: { fetch?: FetchLike } = {}): Transcriber {
  return {
    async transcribe(audio, filename) {
      const form = new FormData();
      form.append("file", audio, filename);
      form.append("model", settings.model);
      form.append("response_format", "json");
      const res = await call(openAiUrl(settings.url, "/audio/transcriptions"), { method: "POST", headers: auth(settings), body: form }, settings.timeoutMs ?? TRANSCRIBE_TIMEOUT_MS, options.fetch);
      if (!res.ok) return res;
      if (typeof res.json.text !== "string") return { ok: false, reason: "the transcription service returned no text" };
      return { ok: true, text: res.json.text, model: settings.model };
    },
  };
}

function auth(settings: OpenAiSettings): Record<string, string> {
  return settings.apiKey ? { authorization: `Bearer ${settings.apiKey}` } : {};
}

async function call(url: string, init: RequestInit, timeoutMs: number, fetch?: FetchLike): Promise<{ ok: true; json: Record<string, unknown> } | { ok: false; reason: string }> {
  try {
    const res = await outboundRequest(url, init, { timeoutMs, ...(fetch ? { fetch } : {}) });
    if (res.status < 200 || res.status >= 300) return { ok: false, reason: `${new URL(url).host} answered ${res.status}` };
    if (!res.json) return { ok: false, reason: `${new URL(url).host} did not answer a JSON object` };
    return { ok: true, json: res.json };
  } catch (e) {
    if (e instanceof OutboundError) return { ok: false, reason: e.message };
    return { ok: false, reason: e instanceof Error ? e.message : String(e) };
  }
}
