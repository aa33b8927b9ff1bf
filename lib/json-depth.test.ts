import { describe, expect, it } from 'vitest';
import { nestsDeeperThan } from './json-depth.js';

function nested(depth: number): unknown {
  return JSON.parse(`${'['.repeat(depth)}${']'.repeat(depth)}`);
}

describe('nestsDeeperThan', () => {
  it('counts objects and arrays, not scalars', () => {
    expect(nestsDeeperThan({ a: [1, 'x', null] }, 2)).toBe(false);
    expect(nestsDeeperThan({ a: [{}] }, 2)).toBe(true);
    expect(nestsDeeperThan('text', 0)).toBe(false);
  });

  it('answers for values nested far deeper than the stack allows to recurse', () => {
    expect(nestsDeeperThan(nested(200_000), 32)).toBe(true);
    expect(nestsDeeperThan(nested(32), 32)).toBe(false);
    expect(nestsDeeperThan(nested(33), 32)).toBe(true);
  });
});
