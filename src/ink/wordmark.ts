// The product wordmark is a parameter, never a constant (DESIGN "Identity, wordmark and interop").
// It selects the key-derived agentId prefix, the ink/0.1 body-signature domain and the legacy
// message-type namespace. "tulpa" is wire-compatible with reference INK peers; "svc" is Kith's default.

export type Wordmark = "svc" | "tulpa";

export const WORDMARKS: readonly Wordmark[] = ["svc", "tulpa"];

export function isWordmark(value: unknown): value is Wordmark {
  return value === "svc" || value === "tulpa";
}

/** Emitted spelling of a namespaced message type: `network.<wordmark>.<suffix>` (INK §3.4). */
export function messageType(suffix: string, wordmark: Wordmark): string {
  return `network.${wordmark}.${suffix}`;
}

/**
 * INK §3.4 dual-accept: a receiver accepts its own wordmark spelling and the neutral
 * `network.ink.*` spelling of a dual-spelled suffix. Never normalized: the wire spelling is signed.
 */
export function isAcceptedMessageType(type: unknown, suffix: string, wordmark: Wordmark): boolean {
  return type === `network.${wordmark}.${suffix}` || type === `network.ink.${suffix}`;
}
