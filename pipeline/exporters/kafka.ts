// Kafka: each artifact produced as a JSON value keyed by its id (so one
// artifact always lands in the same partition), acks from all in-sync
// replicas. Every connection, to the bootstrap brokers and to the brokers
// they name, goes through the guarded socket factory, so the outbound policy
// holds for addresses cairn learns from the cluster too.
// (kafkajs also serves the bus, pipeline/bus/kafka-bus.ts; this is a destination a user configures, with its own client.)
import { Kafka, logLevel as KafkaLogLevel, type LogEntry, type Producer, type SASLOptions } from 'kafkajs';
import type { Artifact } from '../../clickhouse/tables/artifacts.js';
import type { Logger } from '../../lib/logger.js';
import type { OutboundPolicy } from '../../lib/outbound/client.js';
import { guardedSocket } from '../../lib/outbound/tcp.js';
import type { Sender } from './destination.js';
import { exportedArtifact } from './payload.js';
import type { KafkaSettings } from './settings.js';

/** Bytes of values per produce call: one record batch must stay under the broker's message.max.bytes (1 MiB by default). */
const MAX_SEND_BYTES = 768 * 1024;

function sasl(settings: KafkaSettings): SASLOptions | undefined {
  const { sasl_mechanism: mechanism, username, password } = settings;
  return mechanism === 'none' ? undefined : { mechanism, username, password };
}

export class KafkaSender implements Sender {
  private readonly producer: Producer;
  private connecting: Promise<void> | null = null;

  constructor(
    private readonly settings: KafkaSettings,
    policy: OutboundPolicy,
    logger: Logger,
  ) {
    const kafka = new Kafka({
      clientId: 'cairn-exporter',
      brokers: settings.brokers,
      ssl: settings.tls ? { ...(settings.ca ? { ca: [settings.ca] } : {}) } : undefined,
      sasl: sasl(settings),
      socketFactory: ({ host, port, ssl, onConnect }) => {
        const socket = guardedSocket(policy, { host, port, tls: ssl ? (typeof ssl === 'object' ? ssl : {}) : null }, onConnect);
        socket.setKeepAlive(true, 60_000);
        return socket;
      },
      connectionTimeout: 10_000,
      // Few retries inside kafkajs: the exporter's own loop retries with backoff and reports the failure.
      retry: { retries: 2, initialRetryTime: 300, maxRetryTime: 3000 },
      logLevel: KafkaLogLevel.WARN,
      // The exporter logs and reports its failures itself; kafkajs's own lines are detail.
      logCreator:
        () =>
        ({ label, log }: LogEntry) => {
          const { message, ...extra } = log;
          logger.debug({ ...extra, kafka: label }, message);
        },
    });
    this.producer = kafka.producer({ allowAutoTopicCreation: false });
  }

  private connect(): Promise<void> {
    this.connecting ??= this.producer.connect().catch((err: unknown) => {
      this.connecting = null; // try again with the next batch
      throw err;
    });
    return this.connecting;
  }

  async send(artifacts: Artifact[]): Promise<void> {
    await this.connect();
    let chunk: { key: string; value: string }[] = [];
    let bytes = 0;
    const flush = async () => {
      if (chunk.length === 0) return;
      await this.producer.send({ topic: this.settings.topic, acks: -1, messages: chunk });
      chunk = [];
      bytes = 0;
    };
    for (const artifact of artifacts) {
      const value = JSON.stringify(exportedArtifact(artifact));
      const size = Buffer.byteLength(value) + artifact.id.length + 64;
      if (bytes + size > MAX_SEND_BYTES) await flush();
      chunk.push({ key: artifact.id, value });
      bytes += size;
    }
    await flush();
  }

  async close(): Promise<void> {
    if (this.connecting) await this.producer.disconnect().catch(() => {});
  }
}
