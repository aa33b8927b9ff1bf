// artifacts.raw: what sensors send, one artifact per message. Messages from
// the API carry every field; sensors producing straight to Kafka may send only
// `source` and `raw`, and the consuming stages fill the rest deterministically.
import { z } from 'zod';
import { MAX_JSON_DEPTH, nestsDeeperThan } from '../lib/json-depth.js';
import { defineTopic } from './topic.js';

/** Bytes of one artifact's `raw` any ingest takes (it must fit one Kafka message); HTTP rejects more, syslog truncates. */
export const MAX_RAW_BYTES = 256 * 1024;

export const RawArtifact = z.object({
  id: z.uuid().optional(),
  org_id: z.string().min(1).optional(),
  source: z.string().min(1),
  raw: z.string(),
  timestamp: z.iso.datetime({ offset: true }).optional(),
  // Bounded, so that the stages serialising it cannot overflow their stack on a sensor's message.
  metadata: z
    .record(z.string(), z.unknown())
    .refine((m) => !nestsDeeperThan(m, MAX_JSON_DEPTH), `metadata must not nest deeper than ${MAX_JSON_DEPTH} levels`)
    .optional(),
});
export type RawArtifact = z.infer<typeof RawArtifact>;

export const artifactsRaw = defineTopic<RawArtifact>({
  name: 'artifacts.raw',
  schema: RawArtifact,
  // No key: artifacts have no order among themselves, so round robin spreads them as well as a hash
  // of their ids would, without hashing each message (murmur2 in kafkajs cost the producer about
  // 5 µs of CPU an artifact, a third of its send; bench/README.md).
  key: () => null,
});
