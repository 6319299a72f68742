/**
 * The first string in a parsed JSON body that is not well-formed Unicode (a lone surrogate, as
 * `"\ud800"` decodes to), as a path like `body.skills[2]`, or null. Such text cannot be
 * canonicalized (RFC 8785), so it could never be signed into a card or an envelope: owner input
 * is refused at the door instead of breaking a signature later. Iterative, so depth is no risk.
 */
export function illFormedStringPath(value: unknown, root = "body"): string | null {
  const stack: Array<[unknown, string]> = [[value, root]];
  while (stack.length > 0) {
    const [v, path] = stack.pop()!;
    if (typeof v === "string") {
      if (!v.isWellFormed()) return path;
    } else if (Array.isArray(v)) {
      for (let i = v.length - 1; i >= 0; i--) stack.push([v[i], `${path}[${i}]`]);
    } else if (v !== null && typeof v === "object") {
      for (const [k, item] of Object.entries(v)) {
        if (!k.isWellFormed()) return `${path} (a member name)`;
        stack.push([item, `${path}.${k}`]);
      }
    }
  }
  return null;
}
