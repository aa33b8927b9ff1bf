// A chunk packed for a worker unpacks to the same messages, whatever they hold.
import { describe, expect, it } from 'vitest';
import type { DeliveredMessage } from '../bus/index.js';
import { packMessages, unpackMessages } from './packed-messages.js';

function message(i: number, value: string, extra: Partial<DeliveredMessage> = {}): DeliveredMessage {
  return { topic: 'artifacts.raw', partition: 2, offset: String(9_007_199_254_740_000 + i), key: null, value: Buffer.from(value), headers: {}, timestamp: 1_795_700_000_000 + i, ...extra };
}

describe('packed messages', () => {
  it('unpack to the messages packed: empty and multi-byte values, keys and headers where some have them', () => {
    const messages = [message(0, ''), message(1, '{"raw":"ünïcødé ✓"}', { key: 'k1', headers: { 'cairn-x': 'y' } }), message(2, 'x'.repeat(70_000)), message(3, '\u0000', { topic: 'other', partition: 0 })];
    const unpacked = unpackMessages(structuredClone(packMessages(messages)));
    expect(unpacked).toEqual(messages);
    expect(unpacked.every((m) => Buffer.isBuffer(m.value))).toBe(true);
  });

  it('leave keys and headers out when no message has them, and pack nothing as nothing', () => {
    const packed = packMessages([message(0, 'a'), message(1, 'b')]);
    expect([packed.keys, packed.headers]).toEqual([null, null]);
    expect(unpackMessages(packMessages([]))).toEqual([]);
  });
});
