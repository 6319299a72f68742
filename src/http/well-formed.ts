/**
 * The first value of a parsed JSON body that the node refuses to store, as a path like
 * `body.skills[2]` with the reason as a message, or null:
 * - text that is not well-formed Unicode (a lone surrogate, as `"\ud800"` decodes to): it cannot
 *   be canonicalized (RFC 8785), so it could never be signed into a card or an envelope;
 * - text with a NUL character: it cuts strings short in logs, C libraries and terminals;
 * - a number JSON.parse turned into ±Infinity (`1e309`): it has no JSON form to store or answer.
 * Member names count as text. Iterative, so depth is no risk.
 */
export function firstRefusedValue(value: unknown, root = "body"): string | null {
  const stack: Array<[unknown, string]> = [[value, root]];
  while (stack.length > 0) {
    const [v, path] = stack.pop()!;
    if (typeof v === "string") {
      const problem = textProblem(v);
      if (problem) return `${path}: ${problem}`;
    } else if (typeof v === "number") {
      if (!Number.isFinite(v)) return `${path}: a number out of range (it must fit a 64-bit double)`;
    } else if (Array.isArray(v)) {
      for (let i = v.length - 1; i >= 0; i--) stack.push([v[i], `${path}[${i}]`]);
    } else if (v !== null && typeof v === "object") {
      const entries = Object.entries(v);
      for (const [k] of entries) {
        const problem = textProblem(k);
        if (problem) return `${path} (a member name): ${problem}`;
      }
      for (let i = entries.length - 1; i >= 0; i--) stack.push([entries[i]![1], `${path}.${entries[i]![0]}`]);
    }
  }
  return null;
}

function textProblem(text: string): string | null {
  if (!text.isWellFormed()) return "not valid Unicode text (an unpaired UTF-16 surrogate such as \\ud800)";
  if (text.includes("\u0000")) return "contains a NUL character (U+0000)";
  return null;
}
