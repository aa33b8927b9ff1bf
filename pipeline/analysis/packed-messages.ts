// A chunk of bus messages as a few arrays, for the trip to an analysis
// worker. Posted as 5,000 message objects, each with a Buffer of its own, a
// chunk cost about 1.3 µs a message to serialize and rebuild, and the worker
// one ArrayBuffer a message to collect; as one byte array of the values and
// arrays beside it, about 0.25 µs (bench/README.md, eleventh pass).
import type { DeliveredMessage } from '../bus/index.js';

export interface PackedMessages {
  /** One per message, in order. */
  topics: string[];
  partitions: Int32Array;
  offsets: string[];
  timestamps: Float64Array;
  /** Keys, or null when no message has one. */
  keys: (string | null)[] | null;
  /** Headers, or null when no message has any. */
  headers: Record<string, string>[] | null;
  /** Every value, one after the other; value i ends at valueEnds[i]. */
  values: Uint8Array;
  valueEnds: Uint32Array;
}

export function packMessages(messages: DeliveredMessage[]): PackedMessages {
  let bytes = 0;
  for (const m of messages) bytes += m.value.length;
  const values = new Uint8Array(bytes);
  const valueEnds = new Uint32Array(messages.length);
  const partitions = new Int32Array(messages.length);
  const timestamps = new Float64Array(messages.length);
  let at = 0;
  messages.forEach((m, i) => {
    values.set(m.value, at);
    at += m.value.length;
    valueEnds[i] = at;
    partitions[i] = m.partition;
    timestamps[i] = m.timestamp;
  });
  return {
    topics: messages.map((m) => m.topic),
    partitions,
    offsets: messages.map((m) => m.offset),
    timestamps,
    keys: messages.some((m) => m.key !== null) ? messages.map((m) => m.key) : null,
    headers: messages.some((m) => Object.keys(m.headers).length > 0) ? messages.map((m) => m.headers) : null,
    values,
    valueEnds,
  };
}

/** The messages again, each value a view of the packed bytes (no copy). */
export function unpackMessages(packed: PackedMessages): DeliveredMessage[] {
  const { values } = packed;
  const messages = new Array<DeliveredMessage>(packed.offsets.length);
  let start = 0;
  for (let i = 0; i < messages.length; i++) {
    const end = packed.valueEnds[i]!;
    messages[i] = {
      topic: packed.topics[i]!,
      partition: packed.partitions[i]!,
      offset: packed.offsets[i]!,
      key: packed.keys?.[i] ?? null,
      value: Buffer.from(values.buffer, values.byteOffset + start, end - start),
      headers: packed.headers?.[i] ?? {},
      timestamp: packed.timestamps[i]!,
    };
    start = end;
  }
  return messages;
}
