/**
 * A fake OpenAI-compatible server on loopback: /v1/chat/completions answers what the test sets
 * in `reply` (or a status), /v1/audio/transcriptions checks it got a WAV and answers `transcript`.
 * Every request is recorded.
 */
export interface FakeOpenAi {
  url: string;
  requests: Array<{ path: string; headers: Record<string, string>; json?: Record<string, unknown>; form?: { model: string | null; file: Uint8Array | null; fileType: string | null; fileName: string | null } }>;
  /** The assistant message content to answer with, or a raw response. */
  reply: string | (() => Response);
  transcript: string;
  stop(): Promise<void>;
}

export function startFakeOpenAi(): FakeOpenAi {
  const fake: FakeOpenAi = {
    url: "",
    requests: [],
    reply: "",
    transcript: "hello from the fake",
    stop: async () => {},
  };
  const server = Bun.serve({
    port: 0,
    hostname: "127.0.0.1",
    async fetch(req) {
      const path = new URL(req.url).pathname;
      const headers = Object.fromEntries(req.headers.entries());
      if (path === "/v1/chat/completions") {
        const json = (await req.json()) as Record<string, unknown>;
        fake.requests.push({ path, headers, json });
        if (typeof fake.reply === "function") return fake.reply();
        return Response.json({ id: "chatcmpl-1", object: "chat.completion", model: json.model, choices: [{ index: 0, message: { role: "assistant", content: fake.reply }, finish_reason: "stop" }] });
      }
      if (path === "/v1/audio/transcriptions") {
        const form = await req.formData();
        const file = form.get("file");
        const bytes = file instanceof Blob ? new Uint8Array(await file.arrayBuffer()) : null;
        fake.requests.push({ path, headers, form: { model: form.get("model") as string | null, file: bytes, fileType: file instanceof Blob ? file.type : null, fileName: file instanceof File ? file.name : null } });
        if (typeof fake.reply === "function") return fake.reply();
        const wav = bytes !== null && new TextDecoder().decode(bytes.slice(0, 4)) === "RIFF" && new TextDecoder().decode(bytes.slice(8, 12)) === "WAVE";
        if (!wav) return Response.json({ error: { message: "not a WAV" } }, { status: 400 });
        return Response.json({ text: fake.transcript });
      }
      return new Response("not found", { status: 404 });
    },
  });
  fake.url = `http://127.0.0.1:${server.port}/v1`;
  fake.stop = () => server.stop(true);
  return fake;
}

/** A real PCM WAV in memory: RIFF header + a 440 Hz sine, mono 16-bit. */
export function makeWav(seconds = 0.25, sampleRate = 16_000): Uint8Array {
  const samples = Math.round(seconds * sampleRate);
  const data = samples * 2;
  const buf = new ArrayBuffer(44 + data);
  const view = new DataView(buf);
  const text = (offset: number, s: string) => [...s].forEach((c, i) => view.setUint8(offset + i, c.charCodeAt(0)));
  text(0, "RIFF");
  view.setUint32(4, 36 + data, true);
  text(8, "WAVE");
  text(12, "fmt ");
  view.setUint32(16, 16, true); // PCM chunk size
  view.setUint16(20, 1, true); // PCM
  view.setUint16(22, 1, true); // mono
  view.setUint32(24, sampleRate, true);
  view.setUint32(28, sampleRate * 2, true); // byte rate
  view.setUint16(32, 2, true); // block align
  view.setUint16(34, 16, true); // bits per sample
  text(36, "data");
  view.setUint32(40, data, true);
  for (let i = 0; i < samples; i++) view.setInt16(44 + i * 2, Math.round(Math.sin((2 * Math.PI * 440 * i) / sampleRate) * 0.3 * 32767), true);
  return new Uint8Array(buf);
}
