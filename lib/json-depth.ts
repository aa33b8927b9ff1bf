// Bounding how deeply user JSON nests. Serialising or walking a value nested
// thousands of levels deep overflows the stack (JSON.stringify, recursive
// flattening), so bodies, metadata and parsed records are refused or cut
// before anything recursive sees them.

/** Deepest nesting cairn accepts in a request body or an artifact's metadata: `{"a":[1]}` is 2 levels. */
export const MAX_JSON_DEPTH = 32;

/** Whether a parsed JSON value nests more than `limit` objects and arrays deep; iterative, so any depth is safe to ask about. */
export function nestsDeeperThan(value: unknown, limit: number): boolean {
  const stack: [unknown, number][] = [[value, 1]];
  while (stack.length > 0) {
    const [current, depth] = stack.pop()!;
    if (current === null || typeof current !== 'object') continue;
    if (depth > limit) return true;
    for (const child of Array.isArray(current) ? current : Object.values(current)) {
      if (child !== null && typeof child === 'object') stack.push([child, depth + 1]);
    }
  }
  return false;
}

/**
 * Where a parsed JSON value holds a lone UTF-16 surrogate ("\ud800" is valid
 * JSON but not Unicode text; the store refuses such a row), as a dotted path,
 * or null. Call it on values already bounded by nestsDeeperThan.
 */
export function loneSurrogateAt(value: unknown): string | null {
  const at = surrogatePath(value);
  return at ? at.join('.') || '(body)' : null;
}

/**
 * Whether JSON text could parse to a lone surrogate. Text decoded from UTF-8
 * holds none (bytes that are not UTF-8 decode to U+FFFD), so only a
 * \uD800-\uDFFF escape makes one: text without such an escape needs no walk
 * by loneSurrogateAt, which costs more than this scan on every ingest body.
 */
export function mayHoldLoneSurrogate(jsonText: string): boolean {
  return SURROGATE_ESCAPE.test(jsonText);
}

const SURROGATE_ESCAPE = /\\u[dD][89a-fA-F]/;

/** The keys leading to a lone surrogate, or null; built only on the way back from one, as this sees every string of every ingest request. */
function surrogatePath(value: unknown): string[] | null {
  if (typeof value === 'string') return value.isWellFormed() ? null : [];
  if (value === null || typeof value !== 'object') return null;
  for (const [key, child] of Object.entries(value)) {
    if (!key.isWellFormed()) return [key];
    const below = surrogatePath(child);
    if (below) return [key, ...below];
  }
  return null;
}
