import { timingSafeEqual, type KeyObject } from "node:crypto";

/**
 * KeyObjects of the node's own secret keys, one per key array (the vault hands out the same arrays
 * each time; weakly held, never leaving the module that asks). An entry also holds the bytes it was
 * built from and is used only while the array still holds them: an array changed in place (zeroed,
 * reused for another key) gets a new KeyObject, never the old key's. The check is 32 bytes compared
 * in constant time, ~0.1 µs against ~20 µs for building the KeyObject.
 */
export function privateKeyCache(build: (secretKey: Uint8Array) => KeyObject): (secretKey: Uint8Array) => KeyObject {
  const cache = new WeakMap<Uint8Array, { key: KeyObject; bytes: Uint8Array }>();
  return (secretKey) => {
    const hit = cache.get(secretKey);
    if (hit !== undefined && hit.bytes.length === secretKey.length && timingSafeEqual(hit.bytes, secretKey)) return hit.key;
    const key = build(secretKey);
    cache.set(secretKey, { key, bytes: secretKey.slice() });
    return key;
  };
}
