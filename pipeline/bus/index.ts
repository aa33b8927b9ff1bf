// Picks the bus for the configuration: Kafka when brokers are set, else the in-process log.
import path from 'node:path';
import type { Config } from '../../config/env.js';
import type { Logger } from '../../lib/logger.js';
import { KafkaBus } from './kafka-bus.js';
import { LocalBus } from './local/local-bus.js';
import type { Bus } from './types.js';

export type { Bus, DeliveredMessage, OutgoingMessage, Subscription, TopicSpec } from './types.js';

export async function createBus(config: Config, logger: Logger): Promise<Bus> {
  if (config.kafka) {
    return new KafkaBus({ ...config.kafka, logger: logger.child({ component: 'kafka' }) });
  }
  return LocalBus.open(path.join(config.dataDir, 'bus'), {
    partitions: 1,
    segmentBytes: config.bus.segmentBytes,
    logger: logger.child({ component: 'bus' }),
  });
}
