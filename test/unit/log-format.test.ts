import { expect, test } from "bun:test";
import { createJsonLogger, prettyLine } from "../../src/log.ts";
import { resolveConfig } from "../../src/config.ts";

test("pretty format: a request is one readable line with method, path, status and duration; other fields key=value; secrets redacted as in JSON", () => {
  const lines: string[] = [];
  const log = createJsonLogger({ level: "info", format: "pretty", write: (l) => lines.push(l), now: () => Date.UTC(2026, 0, 1, 12, 0, 1, 250) });
  log.info("request", { reqId: "01ABC", method: "GET", path: "/health", status: 503, ms: 1.25 });
  log.warn("peer card refused", { agentId: "svc:zbob", issue: "bad proof here", accessToken: "eyJ.secret" });
  expect(lines[0]).toBe("12:00:01.250 INFO  request GET /health 503 1.25ms reqId=01ABC");
  expect(lines[1]).toBe('12:00:01.250 WARN  peer card refused agentId=svc:zbob issue="bad proof here" accessToken=[redacted]');
  expect(lines.join("\n")).not.toContain("eyJ.secret");
});

test("json stays the default format; KITH_LOG_FORMAT takes json or pretty and nothing else", () => {
  const lines: string[] = [];
  createJsonLogger({ level: "info", write: (l) => lines.push(l) }).info("request", { status: 200 });
  expect(JSON.parse(lines[0]!)).toMatchObject({ level: "info", msg: "request", status: 200 });
  expect(resolveConfig({ flags: {}, env: { KITH_LOG_FORMAT: "pretty" } }).logFormat).toBe("pretty");
  expect(resolveConfig({ flags: {}, env: {} }).logFormat).toBeNull();
  expect(() => resolveConfig({ flags: {}, env: { KITH_LOG_FORMAT: "xml" } })).toThrow("KITH_LOG_FORMAT");
  expect(prettyLine({ time: "2026-01-01T00:00:00.000Z", level: "error", msg: "x", detail: { a: 1 } })).toBe('00:00:00.000 ERROR x detail={"a":1}');
});
