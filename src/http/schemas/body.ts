import * as v from "valibot";
import { DomainError } from "../../domain/errors.ts";
import { firstRefusedValue } from "../well-formed.ts";

const BODY = Symbol.for("kith.json-body");

export interface BodyOptions {
  /** The largest body the route reads, in bytes (default 64 KiB). */
  maxBytes?: number;
  /** Also accept `application/x-www-form-urlencoded` (the OAuth token and revocation endpoints). */
  form?: boolean;
  /** A partial update (every PATCH): a body that names no member is refused, not a 200 that changes nothing. */
  update?: boolean;
}

export interface BodySpec {
  schema: v.GenericSchema;
  maxBytes: number | undefined;
  form: boolean;
  update: boolean;
}

/** A route's `body`: a Standard Schema Elysia validates with, carrying what the request gate needs. */
export interface JsonBody<S extends v.GenericSchema> {
  readonly "~standard": {
    readonly version: 1;
    readonly vendor: "kith";
    readonly validate: (value: unknown) => { value: v.InferOutput<S> };
    readonly types?: { readonly input: v.InferInput<S>; readonly output: v.InferOutput<S> };
  };
  readonly [BODY]: BodySpec;
}

/**
 * Wraps a route's body schema. Elysia builds its validation error by pretty-printing the whole
 * rejected body and every issue (each holding the input again), before any error handler runs:
 * quadratic in depth or length. This validator never lets Elysia see an issue: it stops at the
 * first one (abortEarly) and throws `invalid_input` naming that member, without echoing input.
 * It runs at Elysia's validation stage, after authentication, and first refuses text the node
 * never stores (well-formed.ts). The request gate (plugins/request-gate.ts) reads the route's
 * limits from it.
 */
export function jsonBody<S extends v.GenericSchema>(schema: S, options: BodyOptions = {}): JsonBody<S> {
  return {
    "~standard": { version: 1, vendor: "kith", validate: (value) => ({ value: checkBody(schema, value, options.update ?? false) }) },
    [BODY]: { schema, maxBytes: options.maxBytes, form: options.form ?? false, update: options.update ?? false },
  };
}

/** The spec of a `jsonBody(…)` schema, null for anything else. */
export function bodySpecOf(schema: unknown): BodySpec | null {
  return schema !== null && typeof schema === "object" && BODY in schema ? (schema as { [BODY]: BodySpec })[BODY] : null;
}

/**
 * Where a body schema would drop members it does not know (a plain `v.object`), or null. Owner
 * writes are strict: `{"stauts":"blocked"}` must be a 400 naming `stauts`, not a 200 that changes
 * nothing. `v.looseObject` is the deliberate exception, where a standard says to ignore unknown
 * parameters (RFC 6749 §3.2). The request gate refuses to build an app with such a route.
 */
export function lenientObjectAt(node: SchemaNode | undefined, path = "body", depth = 0): string | null {
  let s = node;
  while (s?.wrapped) s = s.wrapped;
  if (!s?.type || depth > 32) return null;
  if (s.type === "object" || s.type === "object_with_rest") return path;
  const children: Array<[string, SchemaNode | undefined]> = [
    ...Object.entries(s.entries ?? {}).map(([k, c]): [string, SchemaNode] => [`${path}.${k}`, c]),
    [`${path}[]`, s.item],
    [`${path}.*`, s.type === "record" ? s.value : undefined],
    ...(s.options ?? []).map((o): [string, SchemaNode] => [path, o]),
  ];
  for (const [at, child] of children) {
    const found = child ? lenientObjectAt(child, at, depth + 1) : null;
    if (found) return found;
  }
  return null;
}

function checkBody<S extends v.GenericSchema>(schema: S, raw: unknown, update: boolean): v.InferOutput<S> {
  const value = raw === null ? undefined : raw; // the gate's "no body"; a JSON `null` body means the same
  const refused = firstRefusedValue(value);
  if (refused) throw invalid(refused);
  const arrayAt = arrayWhereObject(schema, value, "body", 0);
  if (arrayAt) throw invalid(`${arrayAt}: a JSON object is expected, not an array`);
  const result = v.safeParse(schema, value, { abortEarly: true });
  if (result.success) {
    if (update && isEmptyObject(result.output)) throw invalid(`body: nothing to update: give at least one of ${memberNames(schema).join(", ")}`);
    return result.output;
  }
  if (value === undefined) throw invalid("body: a JSON object is required");
  throw invalid(issueMessage(result.issues[0], "body"));
}

/**
 * `where.path: what` for one valibot issue. valibot's default messages quote the received value;
 * a long one is replaced by its length, so an error never carries much of what was sent.
 */
export function issueMessage(issue: v.BaseIssue<unknown>, where: string): string {
  // the same spelling as the request gate's paths: body.rules[3].match
  const path = (issue.path ?? []).map((p) => (p.type === "array" ? `[${String(p.key)}]` : `.${String(p.key)}`)).join("");
  // v.strictObject's issue for a member it does not know: "Invalid key: Expected never but received …".
  if (issue.expected === "never" && issue.message.startsWith("Invalid key") && issue.path?.length) return `${where}${path}: unknown member (not part of this request; check its spelling)`;
  let message = issue.message;
  if (typeof issue.input === "string" && issue.input.length > 40 && issue.received === `"${issue.input}"`) {
    message = message.replace(issue.received, `a string of ${issue.input.length} characters`);
  }
  return `${where}${path}: ${message}`;
}

function isEmptyObject(value: unknown): boolean {
  return value !== null && typeof value === "object" && Object.values(value).every((member) => member === undefined);
}

function memberNames(schema: SchemaNode): string[] {
  let s: SchemaNode | undefined = schema;
  while (s?.wrapped) s = s.wrapped;
  return Object.keys(s?.entries ?? {});
}

function invalid(detail: string): DomainError {
  return new DomainError("invalid_input", `invalid request: ${detail}`);
}

export interface SchemaNode {
  type?: string;
  wrapped?: SchemaNode;
  entries?: Record<string, SchemaNode>;
  item?: SchemaNode;
  value?: SchemaNode;
  options?: SchemaNode[];
  getter?: (input: unknown) => SchemaNode;
}

const OBJECT_TYPES = new Set(["object", "strict_object", "loose_object", "object_with_rest", "record"]);

/**
 * valibot's object and record schemas accept arrays (`typeof [] === "object"`), so `[]` passed as
 * a policy would read as an empty policy. JSON says which one it is: the path of the first array
 * where the schema wants an object, or null. Bounded by the body's depth (the gate's cap).
 */
function arrayWhereObject(node: SchemaNode | undefined, value: unknown, path: string, depth: number): string | null {
  if (value === null || typeof value !== "object" || depth > 64) return null;
  let s = node;
  while (s?.wrapped) s = s.wrapped;
  if (s?.type === "lazy" && s.getter) s = s.getter(value);
  if (!s?.type) return null;
  if (OBJECT_TYPES.has(s.type)) {
    if (Array.isArray(value)) return path;
    const record = value as Record<string, unknown>;
    const members: Array<[string, SchemaNode | undefined]> = s.type === "record" ? Object.keys(record).map((k) => [k, s.value]) : Object.entries(s.entries ?? {});
    for (const [key, child] of members) {
      if (!Object.hasOwn(record, key)) continue;
      const found = arrayWhereObject(child, record[key], `${path}.${key}`, depth + 1);
      if (found) return found;
    }
    return null;
  }
  if (s.type === "array" && Array.isArray(value)) {
    for (let i = 0; i < value.length; i++) {
      const found = arrayWhereObject(s.item, value[i], `${path}[${i}]`, depth + 1);
      if (found) return found;
    }
    return null;
  }
  if ((s.type === "union" || s.type === "variant") && Array.isArray(value) && (s.options ?? []).every((o) => OBJECT_TYPES.has(unwrapType(o)))) return path;
  return null;
}

function unwrapType(node: SchemaNode): string {
  let s: SchemaNode | undefined = node;
  while (s?.wrapped) s = s.wrapped;
  return s?.type ?? "";
}
