// Constant tables looked up by keys that come from input: log field names,
// artifact sources, host names, query fields, Sigma fields. An object literal
// answers "constructor", "toString" or "valueOf" from its prototype (a field
// named "constructor" became "function Object() { [native code] }", and an
// artifact whose source was "constructor" failed to parse); a table made here
// holds only its own keys.

export function lookupTable<T>(entries: Record<string, T>): Readonly<Record<string, T>> {
  return Object.freeze(Object.assign(Object.create(null) as Record<string, T>, entries));
}

/**
 * `record[key] = value` for a key that comes from input (a log's field
 * name). Assigned, "__proto__" sets the record's prototype, and a scalar
 * value is dropped without a word; it is defined as an own key instead.
 * Records stay object literals, which V8 reads faster than prototype-free ones.
 */
export function setOwn<T>(record: Record<string, T>, key: string, value: NoInfer<T>): void {
  if (key === '__proto__') Object.defineProperty(record, key, { value, enumerable: true, writable: true, configurable: true });
  else record[key] = value;
}
