import { afterEach, beforeEach, describe, expect, test } from "bun:test";
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { bootTestApp, type TestNode } from "../helpers/boot.ts";
import { makeWav, startFakeOpenAi, type FakeOpenAi } from "../helpers/fake-openai.ts";
import { ownerToken } from "../helpers/owner.ts";
import { json } from "../helpers/process.ts";

let fake: FakeOpenAi;
let alice: TestNode;
beforeEach(() => {
  fake = startFakeOpenAi();
  alice = bootTestApp({ name: "alice", assistant: { transcribe: { url: fake.url, model: "whisper-test", apiKey: "sk-audio" } } });
});
afterEach(async () => {
  alice.close();
  await fake.stop();
});

async function upload(node: TestNode, parts: Record<string, Blob | string>, headers: Record<string, string> = {}): Promise<Response> {
  const form = new FormData();
  for (const [k, v] of Object.entries(parts)) form.append(k, v);
  return node.request("/api/svc/media/transcribe", { method: "POST", headers: { authorization: `Bearer ${await ownerToken(node)}`, ...headers }, body: form });
}

const includes = (haystack: Uint8Array, needle: Uint8Array) => Buffer.from(haystack).indexOf(Buffer.from(needle)) >= 0;

describe("transcription", () => {
  test("a real WAV made in memory is forwarded as multipart and the transcript returned; the audio touches neither disk nor log", async () => {
    const wav = makeWav(0.5);
    const res = await upload(alice, { audio: new File([wav], "memo.wav", { type: "audio/wav" }) });
    expect(res.status).toBe(200);
    expect(await json(res)).toEqual({ transcript: "hello from the fake" });
    const call = fake.requests[0]!;
    expect(call.path).toBe("/v1/audio/transcriptions");
    expect(call.headers.authorization).toBe("Bearer sk-audio");
    expect(call.form).toMatchObject({ model: "whisper-test", fileType: expect.stringMatching(/^audio\/(x-)?wav$/), fileName: "clip.wav" });
    expect(Buffer.from(call.form!.file!).equals(Buffer.from(wav))).toBe(true);

    const sample = wav.slice(2000, 2064); // 64 bytes of the sine: unique to this clip
    for (const file of readdirSync(alice.dir)) expect({ file, found: includes(readFileSync(join(alice.dir, file)), sample) }).toEqual({ file, found: false });
    expect(JSON.stringify(alice.logLines)).not.toContain("RIFF");
  });

  test("type, magic bytes, emptiness, the field and the size are checked before anything is sent (400/413)", async () => {
    const wav = makeWav(0.1);
    const cases: Array<[Record<string, Blob | string>, number, RegExp]> = [
      [{ audio: new File([wav], "a.txt", { type: "text/plain" }) }, 400, /content type "text\/plain" is not accepted; use one of audio\/wav/],
      [{ audio: new File([new TextEncoder().encode("#!/bin/sh\necho not audio")], "a.wav", { type: "audio/wav" }) }, 400, /not audio\/(x-)?wav \(its first bytes do not match\)/],
      [{ audio: new File([wav], "a.mp3", { type: "audio/mpeg" }) }, 400, /not audio\/mpeg/],
      [{ audio: new File([], "a.wav", { type: "audio/wav" }) }, 400, /empty/],
      [{ clip: new File([wav], "a.wav", { type: "audio/wav" }) }, 400, /field named audio/],
      [{ audio: "not a file" }, 400, /field named audio/],
    ];
    for (const [parts, status, message] of cases) {
      const res = await upload(alice, parts);
      expect(res.status).toBe(status);
      expect((await json(res)).message).toMatch(message);
    }
    const notMultipart = await alice.request("/api/svc/media/transcribe", { method: "POST", headers: { authorization: `Bearer ${await ownerToken(alice)}`, "content-type": "application/json" }, body: "{}" });
    expect(notMultipart.status).toBe(400);
    expect((await json(notMultipart)).message).toMatch(/multipart\/form-data/);
    const big = new Uint8Array(10 * 1024 * 1024 + 1);
    big.set(wav.slice(0, 44));
    const tooLarge = await upload(alice, { audio: new File([big], "big.wav", { type: "audio/wav" }) });
    expect(tooLarge.status).toBe(413);
    expect((await json(tooLarge)).message).toMatch(/at most 10 MiB/);
    expect(fake.requests).toHaveLength(0);
    expect((await alice.request("/api/svc/media/transcribe", { method: "POST", body: new FormData() })).status).toBe(401);
  });

  test("backend failures answer 503 with a clear message; without a backend 503 unavailable", async () => {
    const wav = makeWav(0.1);
    fake.reply = () => new Response("overloaded", { status: 500 });
    const failed = await upload(alice, { audio: new File([wav], "a.wav", { type: "audio/x-wav" }) });
    expect(failed.status).toBe(503);
    expect(await json(failed)).toEqual({ error: "unavailable", message: expect.stringMatching(/the transcription service failed: 127\.0\.0\.1:\d+ answered 500/) });
    await fake.stop();
    const down = await upload(alice, { audio: new File([wav], "a.wav", { type: "audio/wav" }) });
    expect(down.status).toBe(503);

    const bare = bootTestApp({ name: "bob" });
    try {
      const res = await upload(bare, { audio: new File([wav], "a.wav", { type: "audio/wav" }) });
      expect(res.status).toBe(503);
      expect(await json(res)).toEqual({ error: "unavailable", message: expect.stringContaining("KITH_TRANSCRIBE_URL") });
    } finally {
      bare.close();
    }
  });
});
