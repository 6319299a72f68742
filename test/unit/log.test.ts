import { expect, test } from "bun:test";
import { createJsonLogger } from "../../src/log.ts";

function capture(level: "debug" | "info" | "warn" | "error" | "silent" = "debug") {
  const lines: string[] = [];
  const log = createJsonLogger({ level, write: (l) => lines.push(l), now: () => 0 });
  return { log, lines, parsed: () => lines.map((l) => JSON.parse(l) as Record<string, unknown>) };
}

test("one JSON object per line with time, level and message", () => {
  const { log, lines, parsed } = capture();
  log.info("hello", { a: 1 });
  expect(lines).toHaveLength(1);
  expect(lines[0]).not.toContain("\n");
  expect(parsed()[0]).toEqual({ time: "1970-01-01T00:00:00.000Z", level: "info", msg: "hello", a: 1 });
});

test("level filtering", () => {
  const { log, parsed } = capture("warn");
  log.debug("d");
  log.info("i");
  log.warn("w");
  log.error("e");
  expect(parsed().map((l) => l.level)).toEqual(["warn", "error"]);
  const silent = capture("silent");
  silent.log.error("x");
  expect(silent.lines).toHaveLength(0);
});

test("secrets never reach a log line, at any depth and in any spelling", () => {
  const { log, lines } = capture();
  log.info("auth", {
    privateKey: "PK-SECRET",
    nested: { refresh_token: "RT-SECRET", list: [{ accessToken: "AT-SECRET" }], Authorization: "Bearer AUTH-SECRET" },
    passphrase: "PASS-SECRET",
    "api-key": "API-SECRET",
    code: "123456",
    keyId: "sig-1",
  });
  const text = lines.join("\n");
  for (const secret of ["PK-SECRET", "RT-SECRET", "AT-SECRET", "AUTH-SECRET", "PASS-SECRET", "API-SECRET", "123456"]) expect(text).not.toContain(secret);
  expect(text).toContain("sig-1");
  expect(text).toContain("[redacted]");
});

test("child loggers carry their fields; errors are summarised", () => {
  const { log, parsed } = capture();
  log.child({ reqId: "r1" }).error("failed", { cause: new Error("boom") });
  expect(parsed()[0]).toMatchObject({ reqId: "r1", cause: { name: "Error", message: "boom" } });
});

test("a BigInt is written as its digits, at any depth; the next lines are unaffected", () => {
  const { log, parsed } = capture();
  log.info("big", { n: 12345678901234567890n, nested: { m: 1n }, plain: 2 });
  log.info("after", { plain: 3 });
  expect(parsed()).toEqual([
    { time: "1970-01-01T00:00:00.000Z", level: "info", msg: "big", n: "12345678901234567890", nested: { m: "1" }, plain: 2 },
    { time: "1970-01-01T00:00:00.000Z", level: "info", msg: "after", plain: 3 },
  ]);
});

test("redaction judges every name the same the thousandth time as the first, past any number of distinct names", () => {
  const { log, lines } = capture();
  const many = Object.fromEntries(Array.from({ length: 3000 }, (_, i) => [`field${i}`, i]));
  for (let round = 0; round < 3; round++) log.info("r", { ...many, Token: "T-SECRET", refresh_Token: "RT-SECRET", keyId: "sig-1" });
  for (const line of lines) {
    expect(line).not.toContain("SECRET");
    expect(line).toContain('"keyId":"sig-1"');
    expect(line).toContain('"field2999":2999');
  }
});

test("each line carries the time it was written, within a millisecond and across them", () => {
  let now = Date.parse("2026-06-01T12:00:00.000Z");
  const lines: string[] = [];
  const log = createJsonLogger({ level: "info", write: (l) => lines.push(l), now: () => now });
  log.info("a");
  log.info("b");
  now += 1;
  log.info("c");
  now += 86_400_000;
  log.info("d");
  now -= 86_400_001;
  log.info("e");
  expect(lines.map((l) => JSON.parse(l).time)).toEqual(["2026-06-01T12:00:00.000Z", "2026-06-01T12:00:00.000Z", "2026-06-01T12:00:00.001Z", "2026-06-02T12:00:00.001Z", "2026-06-01T12:00:00.000Z"]);
});
