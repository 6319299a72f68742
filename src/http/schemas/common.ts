import * as v from "valibot";

/** The error body of every non-2xx answer. */
export const ErrorBody = v.object({
  error: v.pipe(v.string(), v.description("Machine-readable error code from a closed list")),
  message: v.pipe(v.string(), v.description("Human-readable explanation, safe to show")),
});

/** Standard error responses for a route's OpenAPI entry. */
export function errors(...statuses: number[]): Record<number, typeof ErrorBody> {
  return Object.fromEntries(statuses.map((s) => [s, ErrorBody]));
}

/** An error response written out as OpenAPI (`detail.responses`), for routes without schemas. */
export function errorResponse(description: string) {
  return {
    description,
    content: { "application/json": { schema: { type: "object" as const, required: ["error", "message"], properties: { error: { type: "string" as const }, message: { type: "string" as const } } } } },
  };
}
