import * as v from "valibot";

/**
 * How a value is written on the wire, for the OpenAPI document, when its schema converts it (a
 * query string that becomes a number or a list): put last in the pipe, it replaces what the
 * JSON Schema conversion would make of the pipe (http/openapi.ts), so the document describes
 * what the server accepts rather than what it turns it into.
 */
export function wireDoc<TInput>(jsonSchema: Record<string, unknown>): v.MetadataAction<TInput, { wire: Record<string, unknown> }> {
  return v.metadata<TInput, { wire: Record<string, unknown> }>({ wire: jsonSchema });
}
