// Turning an artifacts.raw message into a complete artifact, the same way in
// every stage that reads the topic: sensors producing straight to Kafka may
// leave out everything but `source` and `raw`, and the missing parts are
// derived from the message itself so that a replay yields the same artifact.
import { SchemaRegistry, SchemaType } from '@kafkajs/confluent-schema-registry';
import { v7 as uuidv7 } from 'uuid';
import { createHash } from 'node:crypto';
import type { Artifact } from '../clickhouse/tables/artifacts.js';
import { canonicalIso, msToIso } from '../lib/iso-time.js';
import type { Logger } from '../lib/logger.js';
import { artifactsRaw, RawArtifact } from '../topics/index.js';
import type { Envelope } from './bus/consume.js';
import type { DeliveredMessage } from './bus/index.js';

/**
 * A UUIDv7 whose time is `timeMs` and whose other bits come from `seed`: the
 * same inputs, the same id. MD5 is used for spreading bits, not for security:
 * it is the cheapest 16-byte digest, on the path of every sensor message.
 */
export function deterministicUuidV7(timeMs: number, seed: string): string {
  return uuidv7({ msecs: timeMs, random: createHash('md5').update(seed).digest() });
}

export function completeArtifact(artifact: RawArtifact, message: DeliveredMessage, defaultOrgId: string): Artifact {
  const received = msToIso(message.timestamp);
  return {
    id: artifact.id ?? deterministicUuidV7(message.timestamp, `${message.topic}/${message.partition}/${message.offset}/${message.timestamp}`),
    org_id: artifact.org_id ?? defaultOrgId,
    source: artifact.source,
    raw: artifact.raw,
    timestamp: artifact.timestamp ? canonicalIso(artifact.timestamp) : received,
    metadata: artifact.metadata ?? {},
    created_at: received,
  };
}

/**
 * The batch's artifacts, completed, each once: an artifact sent twice in a
 * batch (a sensor that sent its id twice) counts once, as its last copy.
 * Inserts do not fold rows of the same key within themselves
 * (clickhouse/encoded-rows.ts), so the steps that write a row per artifact
 * (store, parser, analysis) read their batch through this.
 */
export function uniqueArtifacts(batch: Envelope<RawArtifact>[], defaultOrgId: string): { artifact: Artifact; message: DeliveredMessage }[] {
  const byId = new Map<string, { artifact: Artifact; message: DeliveredMessage }>();
  for (const { value, message } of batch) {
    const artifact = completeArtifact(value, message, defaultOrgId);
    byId.set(artifact.id, { artifact, message });
  }
  return [...byId.values()];
}

/** Avro schema sensors use with the Confluent wire format; registered under `artifacts.raw-value`. */
export const ARTIFACT_AVRO_SCHEMA = {
  type: 'record',
  name: 'Artifact',
  namespace: 'dev.cairn',
  doc: 'A raw security artifact: one log line or event as a sensor saw it.',
  fields: [
    { name: 'source', type: 'string', doc: 'e.g. suricata, auth, firewall' },
    { name: 'raw', type: 'string' },
    { name: 'timestamp', type: ['null', 'string'], default: null, doc: 'ISO 8601; defaults to when cairn received it' },
    { name: 'metadata', type: ['null', { type: 'map', values: 'string' }], default: null },
    { name: 'id', type: ['null', 'string'], default: null },
    { name: 'org_id', type: ['null', 'string'], default: null },
  ],
};

export const ARTIFACT_SUBJECT = `${artifactsRaw.name}-value`;

/** Confluent wire format: magic byte 0, then a 4-byte schema id. JSON never starts with 0. */
function isWireFormat(value: Buffer): boolean {
  return value.length > 5 && value[0] === 0;
}

function dropNulls(value: unknown): unknown {
  if (value === null || typeof value !== 'object' || Array.isArray(value)) return value;
  return Object.fromEntries(Object.entries(value).filter(([, v]) => v !== null));
}

/** Synchronous for JSON, the common case; a promise only for the registry's wire format. */
export type ArtifactDecoder = (message: DeliveredMessage) => RawArtifact | Promise<RawArtifact>;

/**
 * Decodes artifacts.raw messages: JSON, or the Confluent wire format when a
 * schema registry is configured (the artifact schema is registered first).
 */
export async function createArtifactDecoder(schemaRegistryUrl: string | undefined, logger: Logger): Promise<ArtifactDecoder> {
  let registry: SchemaRegistry | null = null;
  if (schemaRegistryUrl) {
    registry = new SchemaRegistry({ host: schemaRegistryUrl });
    const { id } = await registry.register({ type: SchemaType.AVRO, schema: JSON.stringify(ARTIFACT_AVRO_SCHEMA) }, { subject: ARTIFACT_SUBJECT });
    logger.info({ subject: ARTIFACT_SUBJECT, schemaId: id }, 'artifact schema registered');
  }
  return (message) => {
    if (isWireFormat(message.value)) {
      if (!registry) throw new Error('message is in the Confluent wire format but no schema registry is configured (CAIRN_SCHEMA_REGISTRY_URL)');
      return registry.decode(message.value).then((decoded: unknown) => RawArtifact.parse(dropNulls(decoded)));
    }
    return RawArtifact.parse(JSON.parse(message.value.toString('utf8')));
  };
}
