// What the extension-auth benchmark's load generator signs with (the extension's side, not measured).
export { ed25519Sign } from "../../src/ink/index.ts";
export const utf8ToBytes = (text: string): Uint8Array => new TextEncoder().encode(text);
