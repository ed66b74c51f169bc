/** Freezes a value and everything inside it: for answers shared by every request that follows. */
export function deepFreeze<T>(value: T): T {
  // A typed array cannot be frozen (its elements stay writable) and a Map's entries are not its
  // properties: the cache's own lookups inside kept lists are never handed to a caller to change.
  if (value === null || typeof value !== 'object' || Object.isFrozen(value) || ArrayBuffer.isView(value) || value instanceof Map) return value;
  Object.freeze(value);
  for (const child of Object.values(value)) deepFreeze(child);
  return value;
}
