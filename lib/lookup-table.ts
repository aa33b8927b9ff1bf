// Constant tables looked up by keys that come from input: log field names,
// artifact sources, host names, query fields, Sigma fields. An object literal
// answers "constructor", "toString" or "valueOf" from its prototype (a field
// named "constructor" became "function Object() { [native code] }", and an
// artifact whose source was "constructor" failed to parse); a table made here
// holds only its own keys.

export function lookupTable<T>(entries: Record<string, T>): Readonly<Record<string, T>> {
  return Object.freeze(Object.assign(Object.create(null) as Record<string, T>, entries));
}
