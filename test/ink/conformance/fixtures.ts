// Loading the upstream vector files from the project's own fixtures (never from ../shared).
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";

export const FIXTURES = join(import.meta.dir, "..", "..", "fixtures", "ink-vectors");
export const VECTORS_DIR = join(FIXTURES, "conformance-v1", "vectors");
export const TEST_VECTORS_DIR = join(FIXTURES, "test-vectors");

export type Expect = { result: "accept" | "reject"; [member: string]: unknown };
export type VectorCase = { caseId: string; description: string; input: Record<string, any>; expect: Expect };
export type VectorFile = { format: string; category: string; cases: VectorCase[] };

export function loadVectorFiles(): VectorFile[] {
  return readdirSync(VECTORS_DIR)
    .filter((f) => f.endsWith(".json"))
    .sort()
    .map((f) => JSON.parse(readFileSync(join(VECTORS_DIR, f), "utf8")) as VectorFile);
}

export function loadTestVectors<T = any>(name: string): T {
  return JSON.parse(readFileSync(join(TEST_VECTORS_DIR, `${name}.json`), "utf8")) as T;
}

export function hex(h: string): Uint8Array {
  return Uint8Array.from(Buffer.from(h, "hex"));
}

export function toHexString(b: Uint8Array): string {
  return Buffer.from(b).toString("hex");
}
