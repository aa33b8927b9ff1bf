// The byte-level readers on their own: RFC 6587 framing and RELP frames,
// fed in every split a network can make, and hostile lengths with memory
// and time bounded.
import { describe, expect, it } from 'vitest';
import { StreamFramer } from './framing.js';
import { RelpProtocolError, RelpReader } from './relp.js';

/** Feeds `input` in chunks of `size` bytes and answers the frames as text. */
function frames(input: string, size: number, max = 1024): { text: string; truncated: boolean }[] {
  const framer = new StreamFramer(max);
  const bytes = Buffer.from(input);
  const out: { text: string; truncated: boolean }[] = [];
  for (let i = 0; i < bytes.length; i += size) out.push(...framer.push(bytes.subarray(i, i + size)).map((f) => ({ text: f.bytes.toString(), truncated: f.truncated })));
  return out;
}

describe('StreamFramer', () => {
  it('tells octet-counted and LF-framed messages apart per message, in any chunking', () => {
    const input = '11 <13>counted<13>line one\r\n\n15 <13>two\nwith LF12345678901 not a count\n';
    const expected = [
      { text: '<13>counted', truncated: false },
      { text: '<13>line one', truncated: false },
      { text: '<13>two\nwith LF', truncated: false },
      { text: '12345678901 not a count', truncated: false },
    ];
    for (const size of [1, 2, 3, 7, 1000]) expect(frames(input, size)).toEqual(expected);
  });

  it('keeps the first bytes of an oversize count or an endless line and skips the rest in bounded memory', () => {
    const framer = new StreamFramer(100);
    const out = [...framer.push(Buffer.from(`5000 ${'a'.repeat(300)}`))];
    expect(framer.pendingBytes()).toBeLessThanOrEqual(100);
    out.push(...framer.push(Buffer.from('a'.repeat(4700))));
    out.push(...framer.push(Buffer.from('b'.repeat(10_000))));
    expect(framer.pendingBytes()).toBe(0);
    out.push(...framer.push(Buffer.from('bbb\nok\n')));
    expect(out.map((f) => [f.bytes.length, f.truncated])).toEqual([
      [100, true],
      [100, true],
      [2, false],
    ]);
  });

  it('reads a 1 MB hostile line of digits in linear time', () => {
    const framer = new StreamFramer(256 * 1024);
    const started = performance.now();
    for (let i = 0; i < 16; i++) framer.push(Buffer.from('9'.repeat(64 * 1024)));
    framer.push(Buffer.from('\n'));
    expect(performance.now() - started).toBeLessThan(500);
  });
});

describe('RelpReader', () => {
  it('reads open, syslog with data and close, split anywhere', () => {
    const input = '1 open 14 relp_version=0\n2 syslog 9 <13>hello\n3 close 0\n';
    for (const size of [1, 4, 100]) {
      const reader = new RelpReader();
      const bytes = Buffer.from(input);
      const read: [number, string, string][] = [];
      for (let i = 0; i < bytes.length; i += size) read.push(...reader.push(bytes.subarray(i, i + size)).map((f): [number, string, string] => [f.txnr, f.command, f.data.toString()]));
      expect(read).toEqual([
        [1, 'open', 'relp_version=0'],
        [2, 'syslog', '<13>hello'],
        [3, 'close', ''],
      ]);
    }
  });

  it('truncates oversize data and refuses malformed frames', () => {
    const reader = new RelpReader(4);
    expect(reader.push(Buffer.from(`7 syslog 10 0123456789\n`)).map((f) => [f.data.toString(), f.truncated])).toEqual([['0123', true]]);
    expect(() => new RelpReader().push(Buffer.from('x open 0\n'))).toThrow(RelpProtocolError);
    expect(() => new RelpReader().push(Buffer.from('1 syslog 3 abcdef\n'))).toThrow(RelpProtocolError);
    expect(() => new RelpReader().push(Buffer.from(`1 ${'a'.repeat(40)} 0\n`))).toThrow(RelpProtocolError);
    expect(() => new RelpReader().push(Buffer.from('1234567890123 open 0\n'))).toThrow(RelpProtocolError);
  });
});
