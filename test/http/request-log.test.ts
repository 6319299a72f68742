import { afterEach, expect, test } from "bun:test";
import { bootTestApp, TEST_REMOTE_HEADER, type TestNode } from "../helpers/boot.ts";
import { postIntent, signedIntent } from "../helpers/ink.ts";
import { ownerToken } from "../helpers/owner.ts";
import { json } from "../helpers/process.ts";

let node: TestNode;
afterEach(() => node?.close());

/** The request-log line of a response, found by the request id the node gave it. */
async function loggedStatus(res: Response): Promise<unknown> {
  await Bun.sleep(0); // the line is written after the response
  return node.logLines.find((l) => l.msg === "request" && l.reqId === res.headers.get("x-request-id"))?.status;
}

test("the request log records the status the client received, for every operation of the document and every way a route answers", async () => {
  node = bootTestApp({ auth: { ownerEmail: "alice@example.com" } });
  const token = await ownerToken(node);
  const doc = await json(await node.request("/.well-known/openapi.json"));
  const responses: Response[] = [];
  let ip = 0;
  for (const [path, ops] of Object.entries(doc.paths as Record<string, Record<string, unknown>>)) {
    for (const method of Object.keys(ops)) {
      for (const auth of [null, token]) {
        const headers: Record<string, string> = { [TEST_REMOTE_HEADER]: `10.7.0.${++ip % 250}` };
        if (auth) headers.authorization = `Bearer ${auth}`;
        const withBody = method !== "get" ? { body: "{}", headers: { ...headers, "content-type": "application/json" } } : { headers };
        responses.push(await node.request(path.replace(/\{[^}]+\}/g, "x"), { method: method.toUpperCase(), ...withBody }));
      }
    }
  }
  // Responses built by the route itself: INK answers (200/202/4xx), the card, its 404
  responses.push(await postIntent(node, signedIntent("bob", node, { intent: "connection_request", payload: { method: "discovery", context: "hi", profileSnapshot: { headline: "Bob", skills: [], interests: [], openTo: [] } } })));
  responses.push(await postIntent(node, signedIntent("bob", node, { intent: "ping", payload: {} })));
  responses.push(await node.request(`/ink/v1/${encodeURIComponent(node.agentId!)}/agent.json`));
  responses.push(await node.request("/ink/v1/svc:zNope/agent.json"));
  responses.push(await node.request("/no/such/route"));
  // refusals of the request gate (thrown while parsing) and of an INK route (returned)
  responses.push(await node.request("/api/svc/policy", { method: "PUT", headers: { authorization: `Bearer ${token}`, "content-type": "text/plain" }, body: "{}" }));
  responses.push(await node.request(`/ink/v1/${encodeURIComponent(node.agentId!)}/intent`, { method: "POST", headers: { "content-type": "application/json" }, body: "x".repeat(70_000) }));
  const statuses = new Set(responses.map((r) => r.status));
  for (const s of [200, 202, 400, 401, 404, 413, 415]) expect({ s, seen: statuses.has(s) }).toEqual({ s, seen: true });
  for (const res of responses) {
    expect({ url: res.url, logged: await loggedStatus(res) }).toEqual({ url: res.url, logged: res.status });
  }
});
