import { Elysia, type AnyElysia } from "elysia";
import { DomainError } from "../../domain/errors.ts";
import { invalidUtf8Offset, jsonPathAtEnd, scanJsonText, type TextLimits } from "../body-text.ts";
import { throttle, type SurfaceDeps } from "../deps.ts";
import { bodySpecOf, lenientObjectAt, type BodySpec, type SchemaNode } from "../schemas/body.ts";
import { ownerCheckOf, refuse, type OwnerCheck } from "./owner-auth.ts";
import { isJsonRequest, readRawBody } from "./raw-body.ts";
import { bodyReader, type PerIpRule, type RouteHooks } from "./route-options.ts";

/**
 * The URL and header block a client may send. Bun refuses past 16 KiB by itself, with an empty
 * 431; under this limit the refusal comes from the node, with a body.
 */
export const MAX_HEADER_BYTES = 12 * 1024;

/** Limits of every JSON body unless its `jsonBody(…, {maxBytes})` says otherwise. */
export const BODY_LIMITS = { maxBytes: 64 * 1024, maxDepth: 32, maxValues: 4096 } as const;

interface RouteSpec {
  kind: ReturnType<typeof bodyReader>;
  body: BodySpec | null;
  perIp: PerIpRule | null;
  /** The owner bearer check of an owner route (plugins/owner-auth.ts), run before any body is read. */
  owner: OwnerCheck | null;
}

/**
 * Failed owner-token checks a client address may make (per minute) before its requests to owner
 * routes are answered 429 (a valid token still passes): the owner API is not a place to guess.
 */
export const OWNER_AUTH_FAILURES: PerIpRule = { bucket: "owner-auth-failures", limit: 30, windowMs: 60_000 };

type RouteList = AnyElysia["routes"];

/** What the gate knows of each route (`${method} ${path}`), from routeTableOf. */
export type RouteTable = Map<string, RouteSpec>;

/**
 * The one reader of request bodies for the whole app (a global parse hook, so it runs before
 * authentication, validation and the handler of every route): the route's per-address limit,
 * then the media type, a size cap, strict UTF-8, a depth and value-count cap on the text, and
 * JSON parsing; what the values say is checked after authentication (schemas/body.ts). Routes
 * that take no body accept none (or `{}`). Each refusal is a 4xx naming the member; none depends
 * on NODE_ENV. What a route accepts comes from its own declaration (`body: jsonBody(…)`,
 * `perIp`), read once from the app's route list when the app is built (http/app.ts composeApp,
 * with routeTableOf). See docs/decisions/request-limits.md.
 */
export function requestGate(deps: SurfaceDeps, table: () => RouteTable) {
  // Each hook names what it reads in its parameter list: Elysia reads a hook's source to decide
  // what every route prepares (sucrose), and sets `route` only where a hook uses it; a context
  // passed on whole would make every route parse its cookies, headers and query.
  const specOf = (method: string, route: string): RouteSpec | undefined => table().get(`${method} ${route}`);
  const gate = async ({ request, route, set }: GateContext, _contentType: string): Promise<unknown> => {
    const spec = specOf(request.method, route);
    // Never fall back to Elysia's own parsers: they are what this gate replaces.
    if (!spec) throw new Error(`request gate: no route ${request.method} ${route}`);
    if (spec.perIp) throttle(deps, spec.perIp.bucket, request, spec.perIp);
    if (spec.owner) await requireOwnerToken(deps, spec.owner, request, set);
    if (spec.kind === "raw") return null; // read by the route itself, after its own checks
    if (spec.kind === "own") return undefined;
    return readBody(request, spec.body);
  };
  return new Elysia({ name: "kith/request-gate" })
    .onRequest(({ request }) => {
      if (headerBytes(request) > MAX_HEADER_BYTES) {
        throw new DomainError("headers_too_large", `the URL and headers are larger than ${MAX_HEADER_BYTES} bytes`);
      }
      // Elysia's router reads the path from the URL's 11th character on ("http://" and a host of
      // at least four), so a one- to three-character Host would route GET /abc/api/… as /api/….
      const url = request.url;
      if (url.indexOf("/", url.indexOf("://") + 3) < 11) throw new DomainError("invalid_input", hostProblem(request.headers.get("host")));
    })
    .onParse({ as: "global" }, gate)
    .onTransform({ as: "global" }, async ({ request, route, set }) => {
      // Requests without a parse stage (GET, HEAD) are counted here, still before validation.
      if (request.method !== "GET" && request.method !== "HEAD") return;
      const spec = specOf(request.method, route);
      if (spec?.perIp) throttle(deps, spec.perIp.bucket, request, spec.perIp);
      if (spec?.owner) await requireOwnerToken(deps, spec.owner, request, set);
    });
}

type GateContext = { request: Request; route: string; set: { headers: Record<string, string | number> } };

/**
 * The owner token, before the body is read (review of issue 21: anonymous 4 MiB bodies were read
 * and parsed before the check, and an invalid one answered 400 instead of 401). A failed check
 * counts against the client address; past OWNER_AUTH_FAILURES it is 429.
 */
async function requireOwnerToken(deps: SurfaceDeps, check: OwnerCheck, request: Request, set: GateContext["set"]): Promise<void> {
  const verdict = await check(request);
  if (verdict.ok) return;
  // An unread body would still be received to keep the connection: close it instead.
  if (request.body !== null) set.headers.connection = "close";
  throttle(deps, OWNER_AUTH_FAILURES.bucket, request, OWNER_AUTH_FAILURES);
  throw refuse(set, verdict);
}

/** What is wrong with a Host header the router cannot use (RFC 9110 §7.2: `host[:port]`). */
function hostProblem(host: string | null): string {
  if (host === null || host.trim() === "") return "the Host header is missing: send Host: <name or address>[:port] (RFC 9110 §7.2)";
  if (!/^(\[[0-9A-Fa-f:.]+\]|[A-Za-z0-9._~%!$&'()*+,;=-]+)(:\d{0,5})?$/.test(host)) {
    return `the Host header ${JSON.stringify(host.slice(0, 100))} is not a host name or address with an optional :port (RFC 9110 §7.2)`;
  }
  return "the Host header is too short (at least 4 characters)";
}

function headerBytes(request: Request): number {
  let n = request.url.length;
  request.headers.forEach((value, name) => {
    n += name.length + value.length + 4; // ": " and CRLF
  });
  return n;
}

/**
 * Who reads each route's body and how (json, raw, own), its body limits and its per-address limit.
 * A route whose body the gate cannot read — a plain schema instead of jsonBody(schema) — is an
 * error naming the route: the app is not built.
 */
export function routeTableOf(routes: RouteList): RouteTable {
  const table: RouteTable = new Map();
  for (const route of routes) {
    const hooks = route.hooks as RouteHooks;
    const kind = bodyReader(hooks);
    const body = hooks.body === undefined ? null : bodySpecOf(hooks.body);
    // A plain schema would let Elysia build its own validation error (the cost this gate exists to avoid).
    if (kind === "json" && hooks.body !== undefined && !body) throw new Error(`${route.method} ${route.path}: declare the body with jsonBody(schema)`);
    // Unknown members are refused, never dropped; a PATCH that names nothing is refused (body.ts).
    const lenient = body ? lenientObjectAt(body.schema as SchemaNode) : null;
    if (lenient) throw new Error(`${route.method} ${route.path}: ${lenient} would drop unknown members: use v.strictObject (or v.looseObject where a standard says to ignore them)`);
    if (body && route.method === "PATCH" && !body.update) throw new Error(`${route.method} ${route.path}: declare the body with jsonBody(schema, { update: true })`);
    table.set(`${route.method} ${route.path}`, { kind, body, perIp: hooks.perIp ?? null, owner: ownerCheckOf(hooks.transform) });
  }
  return table;
}

/** The parsed body, or null for none. */
async function readBody(request: Request, body: BodySpec | null): Promise<unknown> {
  const declared = request.headers.get("content-length");
  if (request.body === null || declared === "0") return null;
  const form = body?.form === true && isFormRequest(request);
  if (!form && !isJsonRequest(request)) {
    if ((await readRawBody(request, 0))?.length === 0) return null; // an empty body needs no media type
    throw new DomainError("unsupported_media_type", `send the body as application/json${body?.form ? " (or application/x-www-form-urlencoded)" : ""}`);
  }
  const maxBytes = body?.maxBytes ?? BODY_LIMITS.maxBytes;
  const bytes = await readRawBody(request, maxBytes);
  if (bytes === null) throw new DomainError("payload_too_large", `the body is larger than ${maxBytes} bytes`);
  if (bytes.length === 0) return null;
  const text = decodeUtf8(bytes, form);
  const value = form ? formFields(text) : parseJson(text, BODY_LIMITS);
  if (!body && !isEmptyObject(value)) throw invalid("body: this route takes no request body (send none, or {})");
  return value;
}

const strictUtf8 = new TextDecoder("utf-8", { fatal: true });

/** Strict UTF-8: invalid bytes are refused, naming the member they are in, never stored as U+FFFD. */
function decodeUtf8(bytes: Uint8Array, form: boolean): string {
  try {
    return strictUtf8.decode(bytes);
  } catch {
    const before = new TextDecoder().decode(bytes.subarray(0, invalidUtf8Offset(bytes)));
    const where = form ? `body.${before.slice(before.lastIndexOf("&") + 1).split("=")[0]}` : jsonPathAtEnd(before);
    throw invalid(`${where}: not valid UTF-8 text`);
  }
}

function parseJson(text: string, limits: TextLimits): unknown {
  const scan = scanJsonText(text, limits);
  if (!scan.ok) {
    throw invalid(scan.reason === "depth" ? `${scan.path}: nested deeper than ${limits.maxDepth} levels` : `body: more than ${limits.maxValues} values (members and array items)`);
  }
  try {
    return JSON.parse(text);
  } catch {
    throw invalid("body: not valid JSON");
  }
}

/** `a=1&b=2` (RFC 6749 §3.2: no parameter twice), percent-decoded as UTF-8. */
function formFields(text: string): Record<string, string> {
  const fields: Record<string, string> = {};
  const pairs = text.split("&").filter((p) => p !== "");
  if (pairs.length > BODY_LIMITS.maxValues) throw invalid(`body: more than ${BODY_LIMITS.maxValues} fields`);
  for (const pair of pairs) {
    const at = pair.indexOf("=");
    const name = decodeFormPart(at < 0 ? pair : pair.slice(0, at), "body (a field name)");
    if (Object.hasOwn(fields, name)) throw invalid(`body.${name}: given more than once`);
    fields[name] = decodeFormPart(at < 0 ? "" : pair.slice(at + 1), `body.${name}`);
  }
  return fields;
}

function decodeFormPart(part: string, where: string): string {
  try {
    return decodeURIComponent(part.replaceAll("+", " "));
  } catch {
    throw invalid(`${where}: not valid percent-encoded UTF-8`);
  }
}

function isFormRequest(request: Request): boolean {
  return (request.headers.get("content-type") ?? "").split(";")[0]!.trim().toLowerCase() === "application/x-www-form-urlencoded";
}

function isEmptyObject(value: unknown): boolean {
  return value === null || (typeof value === "object" && !Array.isArray(value) && Object.keys(value).length === 0);
}

function invalid(detail: string): DomainError {
  return new DomainError("invalid_input", `invalid request: ${detail}`);
}
