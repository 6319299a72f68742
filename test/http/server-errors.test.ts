import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { connect } from "node:net";
import { serverOptions } from "../../src/http/server-options.ts";
import { bootTestApp, type TestNode } from "../helpers/boot.ts";

// What a client receives from a real listening server (Bun's HTTP parser in front of the app,
// which `app.handle` skips), configured as `kith serve` configures it.

let node: TestNode;
let server: ReturnType<typeof Bun.serve>;

beforeAll(() => {
  node = bootTestApp();
  server = Bun.serve({ port: 0, hostname: "127.0.0.1", ...serverOptions(node.ctx().log), fetch: (request) => node.app.handle(request) });
});
afterAll(async () => {
  await server.stop(true);
  node.close();
});

interface RawResponse {
  status: number;
  headers: Record<string, string>;
  body: string;
}

/** Writes `parts` to a socket (a pause between them) and reads the response until the server closes. */
function raw(parts: Array<string | Uint8Array>): Promise<RawResponse> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    const socket = connect(server.port!, "127.0.0.1", async () => {
      for (const part of parts) {
        if (socket.destroyed) break;
        socket.write(part);
        await Bun.sleep(20);
      }
    });
    const timer = setTimeout(() => socket.destroy(new Error("no answer within 5 s")), 5000);
    socket.on("data", (d: Buffer) => chunks.push(d));
    socket.on("error", (e) => (chunks.length > 0 ? undefined : reject(e)));
    socket.on("close", () => {
      clearTimeout(timer);
      const text = Buffer.concat(chunks).toString("utf8");
      const [head = "", ...rest] = text.split("\r\n\r\n");
      const [statusLine = "", ...lines] = head.split("\r\n");
      const headers = Object.fromEntries(lines.map((l) => [l.slice(0, l.indexOf(":")).toLowerCase(), l.slice(l.indexOf(":") + 1).trim()]));
      resolve({ status: Number(statusLine.split(" ")[1]), headers, body: rest.join("\r\n\r\n") });
    });
  });
}

function expectShaped(res: RawResponse, status: number, error: string): void {
  expect({ status: res.status, type: res.headers["content-type"]?.split(";")[0] }).toEqual({ status, type: "application/json" });
  const body = JSON.parse(res.body);
  expect(body).toEqual({ ...body, error, message: expect.any(String) });
}

const head = (lines: string[]) => `${lines.join("\r\n")}\r\n\r\n`;

describe("errors of the HTTP layer carry {error, message}", () => {
  test("431: a header block over the node's limit (below Bun's own)", async () => {
    const res = await raw([head(["GET /health HTTP/1.1", "Host: localhost", "Connection: close", `X-Filler: ${"a".repeat(13_000)}`])]);
    expectShaped(res, 431, "headers_too_large");
  });

  test("431: a URL over the node's limit", async () => {
    const res = await raw([head([`GET /discover?q=ab&skills=${"a".repeat(13_000)} HTTP/1.1`, "Host: localhost", "Connection: close"])]);
    expectShaped(res, 431, "headers_too_large");
  });

  test("413: a declared length over the route's cap, refused before the body is read", async () => {
    const res = await raw([head(["POST /auth/email/send HTTP/1.1", "Host: localhost", "Connection: close", "Content-Type: application/json", "Content-Length: 70000"]), "{"]);
    expectShaped(res, 413, "payload_too_large");
  });

  test("413: a declared length over what Bun would have refused itself (16 MiB before)", async () => {
    const res = await raw([head(["POST /auth/email/verify HTTP/1.1", "Host: localhost", "Connection: close", "Content-Type: application/json", `Content-Length: ${20 * 1024 * 1024}`]), "{"]);
    expectShaped(res, 413, "payload_too_large");
  });

  test("413: a chunked body that grows past the cap", async () => {
    const chunk = `${(40_000).toString(16)}\r\n${"a".repeat(40_000)}\r\n`;
    const res = await raw([head(["POST /auth/email/verify HTTP/1.1", "Host: localhost", "Connection: close", "Content-Type: application/json", "Transfer-Encoding: chunked"]), chunk, chunk, "0\r\n\r\n"]);
    expectShaped(res, 413, "payload_too_large");
  });

  test("413 on the INK endpoint: a chunked body past 64 KiB, with INK's error fields", async () => {
    const chunk = `${(40_000).toString(16)}\r\n${"a".repeat(40_000)}\r\n`;
    const path = `/ink/v1/${encodeURIComponent(node.agentId!)}/intent`;
    const res = await raw([head([`POST ${path} HTTP/1.1`, "Host: localhost", "Connection: close", "Content-Type: application/json", "Transfer-Encoding: chunked"]), chunk, chunk, "0\r\n\r\n"]);
    expectShaped(res, 413, "body_too_large");
    expect(JSON.parse(res.body)).toMatchObject({ protocol: "ink/0.1", code: "body_too_large" });
  });

  test("a Host header too short for the router is refused (GET /xyz/health with Host: a answered as /health)", async () => {
    for (const host of ["a", "ab", "abc"]) {
      const res = await raw([head(["GET /xyz/health HTTP/1.1", `Host: ${host}`, "Connection: close"])]);
      expectShaped(res, 400, "invalid_input");
    }
    expect((await raw([head(["GET /health HTTP/1.1", "Host: abcd", "Connection: close"])])).status).toBe(200);
  });

  test("a missing Host, or one that is not host[:port], is refused saying what is wrong (not 'too short')", async () => {
    const cases: Array<[string[], string]> = [
      [["GET /health HTTP/1.0"], "the Host header is missing: send Host: <name or address>[:port]"],
      [["GET /svc HTTP/1.1", "Host: abcdef/api", "Connection: close"], 'the Host header "abcdef/api" is not a host name or address with an optional :port'],
      [["GET /health HTTP/1.1", "Host: a b", "Connection: close"], 'the Host header "a b" is not a host name'],
    ];
    for (const [lines, says] of cases) {
      const res = await raw([head(lines)]);
      expectShaped(res, 400, "invalid_input");
      expect(JSON.parse(res.body).message).toContain(says);
    }
    const short = await raw([head(["GET /xyz/health HTTP/1.1", "Host: ab", "Connection: close"])]);
    expect(JSON.parse(short.body).message).toContain("the Host header is too short");
  });

  test("the request log and the 404 name the path the URL parser gives, whatever the request line and Host", async () => {
    const cases: Array<[string, string, string]> = [
      ["/a/../nowhere%7e/./c?x=1", "localhost", "/nowhere%7e/c"],
      ["//x\\y/%zz/\u00e9#frag", "localhost", "//x/y/%zz/%C3%A9"],
      ["http://other.example/abs/../x?q", "localhost:1", "/x"],
      ["/p/../q", "a b", "/q"],
    ];
    for (const [target, host, path] of cases) {
      node.logLines.length = 0;
      const res = await raw([head([`GET ${target} HTTP/1.1`, `Host: ${host}`, "Connection: close"])]);
      const line = node.logLines.find((l) => l.msg === "request");
      expect({ target, logged: line?.path }).toEqual({ target, logged: path });
      if (res.status === 404) expect(JSON.parse(res.body).message).toBe(`no route for GET ${path}`);
    }
  });

  test("415 and 400 from the gate reach the client the same way", async () => {
    expectShaped(await raw([head(["POST /auth/email/send HTTP/1.1", "Host: localhost", "Connection: close", "Content-Type: text/plain", "Content-Length: 2"]), "{}"]), 415, "unsupported_media_type");
    const deep = `{"email":${"[".repeat(5000)}${"]".repeat(5000)}}`;
    expectShaped(await raw([head(["POST /auth/email/send HTTP/1.1", "Host: localhost", "Connection: close", "Content-Type: application/json", `Content-Length: ${deep.length}`]), deep]), 400, "invalid_input");
  });
});
