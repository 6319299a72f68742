import * as v from "valibot";
import { draftResponse } from "../../domain/assistant/draft-response.ts";
import { summarizeConversation } from "../../domain/assistant/summarize-conversation.ts";
import { AUDIO_TYPES, MAX_AUDIO_BYTES, transcribeAudio } from "../../domain/assistant/transcribe-audio.ts";
import { DomainError } from "../../domain/errors.ts";
import type { OwnerTokens } from "../../security/owner-token.ts";
import type { SurfaceDeps } from "../deps.ts";
import { OWNER_SECURITY } from "../plugins/owner-auth.ts";
import { readRawBody } from "../plugins/raw-body.ts";
import { DraftDoc, SummaryDoc, TranscriptDoc } from "../schemas/assistant.ts";
import { errors } from "../schemas/common.ts";
import { ownerApi } from "./owner.routes.ts";

const IdParam = v.object({ id: v.pipe(v.string(), v.minLength(1), v.maxLength(256)) });
const BACKEND =
  "Backend: the OpenAI-compatible chat endpoint of KITH_LLM_URL when set (backend: llm, model), else the deterministic built-in (backend: builtin). " +
  "When the LLM is down, times out or answers something unusable, the built-in answers instead with fallbackReason saying why — never a 5xx.";

/** Drafts, summaries and transcription: AI-assisted, owner-only, nothing stored. */
export function draftRoutes(deps: SurfaceDeps, o: { tokens: Pick<OwnerTokens, "verify"> }) {
  const doc = (tag: string, summary: string, description: string) => ({ tags: [tag], summary, description, security: OWNER_SECURITY });
  return ownerApi(o.tokens)
    .post("/inbox/:id/draft", ({ actor, params }) => draftResponse(deps.ctx(actor), params.id), {
      params: IdParam,
      response: { 200: DraftDoc, ...errors(400, 401, 404) },
      detail: doc("Inbox", "Draft a response", `A draft of the matching _response (payload valid under INK's schema, and a note for the owner) to edit and send with /respond. Not stored, not sent. ${BACKEND}`),
    })
    .post("/conversations/:id/summarize", ({ actor, params }) => summarizeConversation(deps.ctx(actor), params.id), {
      params: IdParam,
      response: { 200: SummaryDoc, ...errors(401, 404) },
      detail: doc("Conversations", "Summarize a thread", `Built-in: an extractive summary quoting each message and what is still open. ${BACKEND}`),
    })
    .post("/media/transcribe", ({ actor, body }) => transcribeAudio(deps.ctx(actor), audioOf(body)), {
      // A refusal is returned as the body, not thrown: Elysia turns a throw in parse into a generic PARSE error.
      parse: async ({ request }) => {
        // Before auth (Elysia parses first): an anonymous request is not read at all, it gets its 401.
        if (!request.headers.get("authorization")) return {};
        const contentType = request.headers.get("content-type") ?? "";
        if (!contentType.toLowerCase().startsWith("multipart/form-data")) return new DomainError("invalid_input", "send multipart/form-data with the clip in a field named audio");
        // Bounded like every other body read (chunked bodies declare no length).
        const bytes = await readRawBody(request, MAX_AUDIO_BYTES + 64 * 1024);
        if (bytes === null) return new DomainError("payload_too_large", `audio: at most ${MAX_AUDIO_BYTES / 1024 / 1024} MiB (a short clip)`);
        try {
          return await new Response(bytes, { headers: { "content-type": contentType } }).formData();
        } catch {
          return new DomainError("invalid_input", "the multipart body could not be read");
        }
      },
      response: { 200: TranscriptDoc, ...errors(400, 401, 413, 503) },
      detail: {
        ...doc(
          "Media",
          "Transcribe a short audio clip",
          `multipart/form-data, field audio: ${AUDIO_TYPES.join(", ")} (the first bytes must match the type), at most ${MAX_AUDIO_BYTES / 1024 / 1024} MiB. Forwarded to KITH_TRANSCRIBE_URL (OpenAI-compatible /v1/audio/transcriptions); the audio is never written to disk or the database, and the transcript is returned for review, not sent to the agent. 503 when no transcription service is configured or it fails.`,
        ),
        requestBody: {
          required: true,
          content: { "multipart/form-data": { schema: { type: "object", required: ["audio"], properties: { audio: { type: "string", format: "binary", description: "The clip" } } } } },
        },
      },
    });
}

function audioOf(body: unknown): Blob | null {
  if (body instanceof DomainError) throw body;
  const value = body instanceof FormData ? body.get("audio") : body && typeof body === "object" ? (body as Record<string, unknown>).audio : null;
  return value instanceof Blob ? value : null;
}
