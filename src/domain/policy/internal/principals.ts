import { KEY_DERIVED_PREFIXES } from "../../../ink/index.ts";
import { principalOf } from "../../internal/principal-of.ts";

/** Stored lists read back canonical (rows written before canonical storage included). */
export function canonicalAgents(entries: readonly string[]): string[] {
  return [...new Set(entries.map((e) => principalOf(e) ?? e))];
}

const KEY_METHODS = new Set([...KEY_DERIVED_PREFIXES, "key:"].flatMap((p) => [p, p.slice(0, -1)]));

/**
 * An agent-id prefix of `allowedMethods`, compared with canonical principals: every spelling of a
 * key-derived id (`svc:`, `tulpa:`, `ink:`, `key:`) is the one method `key:`; others unchanged.
 */
export function canonicalMethod(prefix: string): string {
  return KEY_METHODS.has(prefix.toLowerCase()) ? "key:" : prefix;
}
