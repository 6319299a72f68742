import Ajv2020, { type ValidateFunction } from "ajv/dist/2020.js";
import addFormats from "ajv-formats";

/**
 * The OpenAPI document as a contract over the suite's real traffic. Test nodes record every
 * request they answer (test/helpers/boot.ts); after each test, contract-preload.ts checks them:
 * - every response's status is documented for its operation, and a JSON body matches its schema;
 * - every request the node accepted (2xx) is one the document accepts: body, query, path.
 * So the document cannot drift from what the server does: a validating client built from it
 * would send what the node takes and understand what it answers.
 */
export interface Exchange {
  method: string;
  url: string;
  requestType: string | null;
  requestBody: string | null;
  status: number;
  responseType: string | null;
  responseBody: string;
}

interface Parameter {
  name: string;
  in: string;
  required?: boolean;
  schema?: unknown;
}
interface Operation {
  parameters?: Parameter[];
  requestBody?: { required?: boolean; content: Record<string, unknown> };
  responses?: Record<string, { content?: Record<string, unknown> }>;
}
interface Route {
  method: string;
  template: string;
  pattern: RegExp;
  names: string[];
  op: Operation;
}

const recorded: Exchange[] = [];
let documentSource: (() => Promise<unknown>) | null = null;

/** Called by the test nodes for every request they answer, with copies of both (unread). */
export async function recordExchange(request: Request, response: Response, fetchDocument: () => Promise<Response>): Promise<void> {
  documentSource ??= async () => (await fetchDocument()).json();
  const accepted = response.status >= 200 && response.status < 300;
  recorded.push({
    method: request.method,
    url: request.url,
    requestType: request.headers.get("content-type"),
    // only what the node accepted is checked against the document's request schemas
    requestBody: accepted && request.body ? await request.text() : null,
    status: response.status,
    responseType: response.headers.get("content-type"),
    responseBody: await response.text(),
  });
}

/** The exchanges recorded since the last call. */
export function takeExchanges(): Exchange[] {
  return recorded.splice(0, recorded.length);
}

export interface Contract {
  check(x: Exchange): string[];
}

let contract: Promise<Contract> | null = null;

/** The contract of the test nodes' document (the same routes for every node, so built once). */
export function suiteContract(): Promise<Contract> | null {
  if (!documentSource) return null;
  return (contract ??= documentSource().then((doc) => buildContract(doc as { paths: Record<string, Record<string, Operation>> })));
}

export function buildContract(doc: { paths: Record<string, Record<string, Operation>> }): Contract {
  const ajv = new Ajv2020({ strict: false, allErrors: false });
  addFormats(ajv);
  ajv.addSchema(doc, "doc");
  const compiled = new Map<string, ValidateFunction>();
  const validator = (...pointer: string[]): ValidateFunction => {
    const ref = `doc#/${pointer.map((p) => p.replaceAll("~", "~0").replaceAll("/", "~1")).join("/")}`;
    let fn = compiled.get(ref);
    if (!fn) compiled.set(ref, (fn = ajv.compile({ $ref: ref })));
    return fn;
  };
  const routes: Route[] = Object.entries(doc.paths).flatMap(([template, ops]) =>
    Object.entries(ops).map(([method, op]) => {
      const names = [...template.matchAll(/\{([^}]+)\}/g)].map((m) => m[1]!);
      const pattern = new RegExp(`^${template.replace(/[.*+?^$()|[\]\\]/g, "\\$&").replace(/\\?\{[^}]+\\?\}/g, "([^/]+)")}$`);
      return { method: method.toUpperCase(), template, pattern, names, op };
    }),
  );
  // A static segment wins over a parameter, as in the router (`/discover` before `/{handle}`).
  routes.sort((a, b) => a.names.length - b.names.length || b.template.length - a.template.length);

  return {
    check(x) {
      const url = new URL(x.url);
      const route = routes.find((r) => r.method === x.method && r.pattern.test(url.pathname));
      if (!route) return [];
      const where = `${x.method} ${route.template} → ${x.status}`;
      const problems: string[] = [];
      const fail = (what: string, fn: ValidateFunction) => problems.push(`${where}: ${what}: ${ajv.errorsText(fn.errors)}`);
      const at = ["paths", route.template, x.method.toLowerCase()];
      // responses
      const documented = route.op.responses?.[String(x.status)] ?? route.op.responses?.default;
      if (!documented) problems.push(`${where}: status ${x.status} is not documented`);
      else if (isJson(x.responseType) && documented.content?.["application/json"] && x.responseBody !== "") {
        const fn = validator(...at, "responses", route.op.responses?.[String(x.status)] ? String(x.status) : "default", "content", "application/json", "schema");
        if (!fn(JSON.parse(x.responseBody))) fail("response body", fn);
      }
      if (x.status < 200 || x.status >= 300) return problems;
      // what the node accepted, the document must accept
      const values = route.pattern.exec(url.pathname)!.slice(1).map(decodeURIComponent);
      for (const [i, p] of (route.op.parameters ?? []).entries()) {
        const raw = p.in === "path" ? values[route.names.indexOf(p.name)] : p.in === "query" ? url.searchParams.get(p.name) ?? undefined : undefined;
        if (p.in !== "path" && p.in !== "query") continue;
        if (raw === undefined) {
          if (p.required) problems.push(`${where}: ${p.in} parameter ${p.name} is required by the document`);
          continue;
        }
        const fn = validator(...at, "parameters", String(i), "schema");
        if (!fn(coerce(raw, p.schema))) fail(`${p.in} parameter ${p.name}=${JSON.stringify(raw).slice(0, 80)}`, fn);
      }
      const body = route.op.requestBody;
      const sent = x.requestBody !== null && x.requestBody !== "";
      if (body && !sent && body.required) problems.push(`${where}: the document requires a body; the node took none`);
      if (!body || !sent) return problems;
      const type = (x.requestType ?? "").split(";")[0]!.trim().toLowerCase();
      if (!(type in body.content)) {
        problems.push(`${where}: the node took a ${type || "untyped"} body; the document lists ${Object.keys(body.content).join(", ")}`);
        return problems;
      }
      const value = type === "application/json" ? JSON.parse(x.requestBody!) : type === "application/x-www-form-urlencoded" ? Object.fromEntries(new URLSearchParams(x.requestBody!)) : undefined;
      if (value === undefined) return problems;
      const fn = validator(...at, "requestBody", "content", type, "schema");
      if (!fn(value)) fail("request body", fn);
      return problems;
    },
  };
}

function isJson(type: string | null): boolean {
  return (type ?? "").split(";")[0]!.trim().toLowerCase() === "application/json";
}

/** Query and path values are text on the wire; the document types them (integer, boolean). */
function coerce(raw: string, schema: unknown): unknown {
  const type = (schema as { type?: unknown } | undefined)?.type;
  if ((type === "integer" || type === "number") && /^-?\d+(\.\d+)?$/.test(raw)) return Number(raw);
  if (type === "boolean" && (raw === "true" || raw === "false")) return raw === "true";
  return raw;
}
