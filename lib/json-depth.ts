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
