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
export function loneSurrogateAt(value: unknown, path = ''): string | null {
  if (typeof value === 'string') return value.isWellFormed() ? null : path || '(body)';
  if (value === null || typeof value !== 'object') return null;
  for (const [key, child] of Object.entries(value)) {
    // The path is built only where it is needed: this runs on every string of every ingest request.
    const childPath = (): string => `${path}${path ? '.' : ''}${key}`;
    if (!key.isWellFormed()) return childPath();
    if (typeof child === 'string') {
      if (!child.isWellFormed()) return childPath();
    } else if (child !== null && typeof child === 'object') {
      const at = loneSurrogateAt(child, childPath());
      if (at) return at;
    }
  }
  return null;
}
