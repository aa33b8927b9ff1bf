// The kafkajs patch (patches/kafkajs+2.2.4.patch) rewrites how record batches
// are encoded and decoded. These tests hold it to the wire format: known
// bytes for varints, the CRC-32C check value, and batches that round-trip
// with offsets and timestamps past 2^53 and deltas of either sign.
import { createRequire } from 'node:module';
import { describe, expect, it } from 'vitest';

const require = createRequire(import.meta.url);

interface KafkaLong { toString(): string }
interface LongModule { fromString(value: string): KafkaLong }
interface EncoderInstance { buffer: Buffer; writeVarInt(value: number): EncoderInstance; writeVarLong(value: number): EncoderInstance }
interface EncoderClass { new (): EncoderInstance; sizeOfVarLong(value: number): number }
interface DecodedRecord { offset: string; timestamp: string; key: Buffer | null; value: Buffer | null; headers: Record<string, Buffer | Buffer[]> }
interface ProduceRequest { encode(): Promise<EncoderInstance> }
interface MessageIn { key: Buffer | null; value: Buffer; headers?: Record<string, string | string[]>; timestamp?: number }

const kafkajs = 'kafkajs/src';
const Long = require(`${kafkajs}/utils/long`) as LongModule;
const Encoder = require(`${kafkajs}/protocol/encoder`) as EncoderClass;
const Decoder = require(`${kafkajs}/protocol/decoder`) as new (buffer: Buffer) => unknown;
const crc32C = require(`${kafkajs}/protocol/recordBatch/crc32C`) as (buffer: Buffer) => number;
const Record = require(`${kafkajs}/protocol/recordBatch/record/v0`) as (record: { offsetDelta: number; timestampDelta: number; key: Buffer | null; value: Buffer; headers?: Record<string, string | string[]> }) => EncoderInstance;
const { RecordBatch } = require(`${kafkajs}/protocol/recordBatch/v0`) as {
  RecordBatch(batch: { firstOffset: KafkaLong; firstTimestamp: number; maxTimestamp: number; lastOffsetDelta: number; records: EncoderInstance[] }): Promise<EncoderInstance>;
};
const decodeBatch = require(`${kafkajs}/protocol/recordBatch/v0/decoder`) as (decoder: unknown) => Promise<{ records: DecodedRecord[] }>;
const produceV3 = require(`${kafkajs}/protocol/requests/produce/v3/request`) as (request: {
  acks: number; timeout: number; topicData: { topic: string; partitions: { partition: number; firstSequence: number; messages: MessageIn[] }[] }[];
}) => ProduceRequest;

const hex = (buffer: Buffer): string => buffer.toString('hex');

describe('kafkajs as patched', () => {
  it('writes varints and varlongs as the protocol spells them (zigzag, then 7 bits a byte)', () => {
    const cases: [number, string][] = [[0, '00'], [-1, '01'], [1, '02'], [63, '7e'], [-64, '7f'], [64, '8001'], [150, 'ac02'], [-(2 ** 27), 'ffffff7f'], [2 ** 29, '8080808004']];
    for (const [value, bytes] of cases) {
      expect(hex(new Encoder().writeVarInt(value).buffer), `varint ${value}`).toBe(bytes);
      expect(hex(new Encoder().writeVarLong(value).buffer), `varlong ${value}`).toBe(bytes);
      expect(Encoder.sizeOfVarLong(value), `size of ${value}`).toBe(bytes.length / 2);
    }
    // past 2^30 a varlong takes the 64-bit path: 2^40 zigzags to 2^41, 41 bits in six bytes
    expect(hex(new Encoder().writeVarLong(2 ** 40).buffer)).toBe('808080808040');
  });

  it('takes CRC-32C (Castagnoli) of a batch: the check value of "123456789" is e3069283', () => {
    expect(crc32C(Buffer.from('123456789')).toString(16)).toBe('e3069283');
    expect(crc32C(Buffer.alloc(0))).toBe(0);
  });

  it('round-trips a batch with offsets and timestamps past 2^53 and deltas of either sign', async () => {
    const deltas = [0, 1, -1, 300, -(2 ** 27), 2 ** 27, 2 ** 31, -(2 ** 33), 2 ** 40];
    for (const firstOffset of ['0', '9007199254740990', '9223372036854775000']) {
      for (const firstTimestamp of [1_795_764_015_556, 9_007_199_254_740_000]) {
        const records = deltas.map((timestampDelta, i) =>
          Record({ offsetDelta: i * 1000, timestampDelta, key: i % 2 ? Buffer.from(`k${i}`) : null, value: Buffer.from('v'.repeat(i * 37)), headers: i % 3 ? { a: 'x', b: ['y', 'z'] } : {} }));
        const batch = await RecordBatch({ firstOffset: Long.fromString(firstOffset), firstTimestamp, maxTimestamp: firstTimestamp, lastOffsetDelta: deltas.length - 1, records });
        const decoded = await decodeBatch(new Decoder(batch.buffer));
        expect(decoded.records.map((r) => r.offset)).toEqual(deltas.map((_, i) => String(BigInt(firstOffset) + BigInt(i * 1000))));
        expect(decoded.records.map((r) => r.timestamp)).toEqual(deltas.map((d) => String(BigInt(firstTimestamp) + BigInt(d))));
        expect(decoded.records.map((r) => r.value?.length)).toEqual(deltas.map((_, i) => i * 37));
        // header values come back as bytes, as kafkajs hands them to consumers
        expect(decoded.records[1]).toMatchObject({ key: Buffer.from('k1'), headers: { a: Buffer.from('x'), b: [Buffer.from('y'), Buffer.from('z')] } });
        expect(decoded.records[3]).toMatchObject({ key: Buffer.from('k3'), headers: {} });
      }
    }
  });

  it('encodes a produce request whose records are those sent, in order, with a batch CRC the broker accepts', async () => {
    const messages: MessageIn[] = Array.from({ length: 500 }, (_, i) => ({ key: i % 7 ? null : Buffer.from(`key-${i}`), value: Buffer.from(JSON.stringify({ n: i, raw: 'x'.repeat(i % 90) })), headers: i === 3 ? { origin: 'test' } : undefined, timestamp: 1_795_764_015_556 + (i % 5) }));
    const request = await produceV3({ acks: -1, timeout: 30_000, topicData: [{ topic: 't', partitions: [{ partition: 0, firstSequence: 0, messages }] }] }).encode();
    // transactional id (-1), acks, timeout, one topic named "t", one partition, its number and the batch's size
    const batchStart = 2 + 2 + 4 + 4 + 2 + 1 + 4 + 4 + 4;
    const batch = request.buffer.subarray(batchStart);
    // first offset (8 bytes), then the length of what follows it
    expect(batch.readInt32BE(8)).toBe(batch.length - 12);
    // the CRC covers the batch from its attributes (byte 21) to its end
    expect(batch.readUInt32BE(17)).toBe(crc32C(batch.subarray(21)));
    const decoded = await decodeBatch(new Decoder(batch));
    expect(decoded.records.map((r) => r.value?.toString())).toEqual(messages.map((m) => m.value.toString()));
    expect(decoded.records.map((r) => r.key?.toString() ?? null)).toEqual(messages.map((m) => m.key?.toString() ?? null));
    expect(decoded.records.map((r) => r.timestamp)).toEqual(messages.map((m) => String(m.timestamp)));
    expect(decoded.records.map((r) => r.offset)).toEqual(messages.map((_, i) => String(i)));
    expect(decoded.records[3]?.headers).toEqual({ origin: Buffer.from('test') });
  });
});
