import { describe, expect, it } from 'vitest';
import { loneSurrogateAt, mayHoldLoneSurrogate, nestsDeeperThan } from './json-depth.js';

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

describe('lone surrogates', () => {
  it('finds where a parsed value holds one', () => {
    expect(loneSurrogateAt(JSON.parse('{"a":[{"b":"x\\ud800"}]}'))).toBe('a.0.b');
    expect(loneSurrogateAt(JSON.parse('{"a":"\\ud83d\\ude00"}'))).toBeNull();
  });

  it('needs the walk only for text with a surrogate escape, in either case', () => {
    for (const text of ['{"a":"\\ud800"}', '{"a":"\\uDFFF"}', '{"a":"\\uDbff"}', '{"a":"\\ud83d\\ude00"}']) {
      expect(mayHoldLoneSurrogate(text), text).toBe(true);
    }
    for (const text of ['{"a":"x"}', '{"a":"\\u00e9\\ud7ff\\ue000"}', '{"a":"😀 \u00e9"}', '{"a":"\ufffd"}']) {
      expect(mayHoldLoneSurrogate(text), text).toBe(false);
      expect(loneSurrogateAt(JSON.parse(text)), text).toBeNull();
    }
    // text decoded from bytes that are not UTF-8 holds U+FFFD, never a lone surrogate
    const decoded = Buffer.from([0x7b, 0x22, 0x61, 0x22, 0x3a, 0x22, 0xed, 0xa0, 0x80, 0x22, 0x7d]).toString('utf8');
    expect(mayHoldLoneSurrogate(decoded)).toBe(false);
    expect(loneSurrogateAt(JSON.parse(decoded))).toBeNull();
  });
});
