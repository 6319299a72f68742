import { createHash } from "node:crypto";

/** Lowercase hex SHA-256, native: on the extension request path (token hash, audit chain hash). */
export function sha256Hex(bytes: Uint8Array | string): string {
  return createHash("sha256").update(bytes).digest("hex");
}
