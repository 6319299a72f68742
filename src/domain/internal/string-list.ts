/** A stored JSON list of strings, read forgivingly: anything else in it is dropped, a broken document is empty. */
export function parseStringList(json: string): string[] {
  try {
    const v = JSON.parse(json);
    return Array.isArray(v) ? v.filter((x): x is string => typeof x === "string") : [];
  } catch {
    return [];
  }
}
