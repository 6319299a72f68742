// RFC 8785 (JCS) canonical JSON, the form INK hashes and signs (protocol/AUDIT.md §2: the audit
// chain hash and agentSignature are over JCS of the event). JavaScript's own number and string
// serialisation are exactly JCS's (RFC 8785 §3.2.2); members sort by UTF-16 code units, which is
// what the default string comparison does.

export class CanonicalJsonError extends Error {
  override name = "CanonicalJsonError";
}

export function canonicalJson(value: unknown): string {
  if (value === null || typeof value === "boolean") return JSON.stringify(value);
  if (typeof value === "string") {
    if (/[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/.test(value)) throw new CanonicalJsonError("a lone surrogate cannot be canonicalised");
    return JSON.stringify(value);
  }
  if (typeof value === "number") {
    // INK's profile: integers must be exact (safe integers); other finite numbers as ES prints them.
    if (!Number.isFinite(value)) throw new CanonicalJsonError("a non-finite number cannot be canonicalised");
    if (Number.isInteger(value) && !Number.isSafeInteger(value)) throw new CanonicalJsonError("an integer outside the safe range");
    return JSON.stringify(value);
  }
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(",")}]`;
  if (typeof value === "object") {
    const obj = value as Record<string, unknown>;
    const keys = Object.keys(obj).filter((k) => obj[k] !== undefined).sort();
    return `{${keys.map((k) => `${canonicalJson(k)}:${canonicalJson(obj[k])}`).join(",")}}`;
  }
  throw new CanonicalJsonError(`a ${typeof value} cannot be canonicalised`);
}
