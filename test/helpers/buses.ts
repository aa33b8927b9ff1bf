// Builds each bus implementation against the services the global setup started.
import { randomUUID } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { inject } from 'vitest';
import { createLogger } from '../../lib/logger.js';
import { KafkaBus } from '../../pipeline/bus/kafka-bus.js';
import { LocalBus } from '../../pipeline/bus/local/local-bus.js';
import type { Bus } from '../../pipeline/bus/types.js';

export type BusKind = 'local' | 'kafka';
export const BUS_KINDS: BusKind[] = ['local', 'kafka'];

export const testLogger = createLogger(process.env.CAIRN_LOG_LEVEL ?? 'warn');

/** Short session timeout so a killed consumer's partitions move on quickly (broker minimum is 6 s). */
export const KAFKA_SESSION_TIMEOUT_MS = 6000;

export interface BusSettings {
  kind: BusKind;
  /** Local bus folder, or Kafka brokers. */
  location: string;
  partitions: number;
}

export function busSettings(kind: BusKind, partitions = 1): BusSettings {
  return kind === 'local'
    ? { kind, location: fs.mkdtempSync(path.join(os.tmpdir(), 'cairn-bus-')), partitions }
    : { kind, location: inject('kafkaBrokers'), partitions };
}

export async function openBus(settings: BusSettings, segmentBytes = 64 * 1024 * 1024): Promise<Bus> {
  return settings.kind === 'local'
    ? LocalBus.open(settings.location, { partitions: settings.partitions, segmentBytes, logger: testLogger })
    : new KafkaBus({
        brokers: settings.location.split(','),
        clientId: 'cairn-test',
        partitions: settings.partitions,
        logger: testLogger,
        sessionTimeoutMs: KAFKA_SESSION_TIMEOUT_MS,
      });
}

export function uniqueName(prefix: string): string {
  return `${prefix}.${randomUUID().slice(0, 8)}`;
}

/** Polls until `check` passes or the time is up; returns its last result. */
export async function eventually<T>(check: () => Promise<T> | T, timeoutMs = 20_000, intervalMs = 50): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  let lastError: unknown;
  for (;;) {
    try {
      return await check();
    } catch (err) {
      lastError = err;
      if (Date.now() > deadline) throw lastError;
      await new Promise((r) => setTimeout(r, intervalMs));
    }
  }
}
