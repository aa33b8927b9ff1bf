// kafkajs's record batches, as installed (patches/kafkajs+2.2.4.patch): µs a
// record to encode a produce request of artifact-sized records, as the API
// sends them, and to decode the batch, as each consumer group does.
//
//   node --import tsx bench/kafkajs-batches.ts [--records 2000] [--rounds 5]
import { createRequire } from 'node:module';
import { parseArgs } from 'node:util';
import { loadSamples, machineLine } from './lib.js';

const { values: args } = parseArgs({ options: { records: { type: 'string', default: '2000' }, rounds: { type: 'string', default: '5' } } });
const RECORDS = Number(args.records);
const ROUNDS = Number(args.rounds);
const SENDS = 50;

interface Encoded { buffer: Buffer }
interface Message { key: null; value: Buffer }
const require = createRequire(import.meta.url);
const produceV3 = require('kafkajs/src/protocol/requests/produce/v3/request') as (request: {
  acks: number; timeout: number; topicData: { topic: string; partitions: { partition: number; firstSequence: number; messages: Message[] }[] }[];
}) => { encode(): Promise<Encoded> };
const decodeBatch = require('kafkajs/src/protocol/recordBatch/v0/decoder') as (decoder: unknown) => Promise<{ records: { value: Buffer | null }[] }>;
const Decoder = require('kafkajs/src/protocol/decoder') as new (buffer: Buffer) => unknown;

const TOPIC = 'cairn.artifacts.raw';
const samples = loadSamples().lines;
if (samples.length === 0) throw new Error('no sample logs found: set CAIRN_SAMPLES_DIR');
// what the API puts on artifacts.raw: the artifact as JSON
const messages: Message[] = Array.from({ length: RECORDS }, (_, i) => {
  const sample = samples[i % samples.length]!;
  return { key: null, value: Buffer.from(JSON.stringify({ id: crypto.randomUUID(), source: sample.source, raw: sample.raw, timestamp: new Date().toISOString() })) };
});

async function encode(): Promise<Buffer> {
  const request = produceV3({ acks: -1, timeout: 30_000, topicData: [{ topic: TOPIC, partitions: [{ partition: 0, firstSequence: 0, messages }] }] });
  return (await request.encode()).buffer;
}

// The batch follows the request's transactional id, acks, timeout, topic count and name, partition count, partition and size.
const batch = (await encode()).subarray(2 + 2 + 4 + 4 + 2 + Buffer.byteLength(TOPIC) + 4 + 4 + 4);
const bytes = messages.reduce((sum, m) => sum + m.value.length, 0);
console.log(machineLine());
console.log(`${RECORDS} records a batch, ${Math.round(bytes / RECORDS)} bytes a record on average`);
for (let round = 1; round <= ROUNDS; round++) {
  let start = process.hrtime.bigint();
  for (let i = 0; i < SENDS; i++) await encode();
  const encodeMicros = Number(process.hrtime.bigint() - start) / 1e3 / (SENDS * RECORDS);
  start = process.hrtime.bigint();
  let decoded = 0;
  for (let i = 0; i < SENDS; i++) decoded += (await decodeBatch(new Decoder(batch))).records.length;
  const decodeMicros = Number(process.hrtime.bigint() - start) / 1e3 / decoded;
  console.log(`round ${round}: encode ${encodeMicros.toFixed(2)} µs a record, decode ${decodeMicros.toFixed(2)} µs a record`);
}
