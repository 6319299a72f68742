import type { With } from "../context.ts";
import { DomainError } from "../errors.ts";
import { invalidInput } from "../internal/errors.ts";
import { requireOwner } from "../internal/actors.ts";

/** A short clip: well under the node's 16 MiB request cap. */
export const MAX_AUDIO_BYTES = 10 * 1024 * 1024;

/** Accepted content types and the magic bytes their files start with. */
const FORMATS: Record<string, { ext: string; magic: (b: Uint8Array) => boolean }> = {
  "audio/wav": { ext: "wav", magic: isWav },
  "audio/x-wav": { ext: "wav", magic: isWav },
  "audio/wave": { ext: "wav", magic: isWav },
  "audio/mpeg": { ext: "mp3", magic: (b) => ascii(b, 0, "ID3") || (b[0] === 0xff && ((b[1] ?? 0) & 0xe0) === 0xe0) },
  "audio/mp4": { ext: "m4a", magic: (b) => ascii(b, 4, "ftyp") },
  "audio/x-m4a": { ext: "m4a", magic: (b) => ascii(b, 4, "ftyp") },
  "audio/ogg": { ext: "ogg", magic: (b) => ascii(b, 0, "OggS") },
  "audio/webm": { ext: "webm", magic: (b) => b[0] === 0x1a && b[1] === 0x45 && b[2] === 0xdf && b[3] === 0xa3 },
  "audio/flac": { ext: "flac", magic: (b) => ascii(b, 0, "fLaC") },
};
export const AUDIO_TYPES = Object.keys(FORMATS);

/**
 * `POST /api/svc/media/transcribe`: checks the clip (size, declared type, and that its first bytes
 * are that format), forwards it to the configured OpenAI-compatible transcription endpoint and
 * returns the text for the owner to review. The audio only ever lives in memory: it is never
 * written to disk or the database, never logged, and the transcript is not sent to the agent.
 */
export async function transcribeAudio(ctx: With<"assistant">, audio: Blob | null): Promise<{ transcript: string }> {
  requireOwner(ctx, "transcribes audio");
  if (!ctx.assistant.transcriber) throw new DomainError("unavailable", "transcription is not configured on this node (set KITH_TRANSCRIBE_URL to an OpenAI-compatible /v1/audio/transcriptions service)");
  if (!audio) throw invalidInput("audio: send the clip as multipart/form-data in a field named audio");
  if (audio.size === 0) throw invalidInput("audio: the file is empty");
  if (audio.size > MAX_AUDIO_BYTES) throw new DomainError("payload_too_large", `audio: at most ${MAX_AUDIO_BYTES / 1024 / 1024} MiB (a short clip)`);
  const type = audio.type.split(";")[0]!.trim().toLowerCase();
  const format = FORMATS[type];
  if (!format) throw invalidInput(`audio: content type ${JSON.stringify(type || "(none)")} is not accepted; use one of ${AUDIO_TYPES.join(", ")}`);
  const head = new Uint8Array(await audio.slice(0, 16).arrayBuffer());
  if (!format.magic(head)) throw invalidInput(`audio: the file is not ${type} (its first bytes do not match)`);
  const res = await ctx.assistant.transcriber.transcribe(new Blob([audio], { type }), `clip.${format.ext}`);
  if (!res.ok) {
    ctx.log.warn("transcription backend failed", { reason: res.reason });
    throw new DomainError("unavailable", `the transcription service failed: ${res.reason}`);
  }
  return { transcript: res.text.trim() };
}

function isWav(b: Uint8Array): boolean {
  return ascii(b, 0, "RIFF") && ascii(b, 8, "WAVE");
}

function ascii(b: Uint8Array, offset: number, s: string): boolean {
  for (let i = 0; i < s.length; i++) if (b[offset + i] !== s.charCodeAt(i)) return false;
  return true;
}
