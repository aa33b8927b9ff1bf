// Runs the enabled exporters: one subscription to artifacts.raw per exporter,
// each its own consumer group `exporter-<id>`, so a destination that fails
// holds back only its own exporter. The list is read from the store at start,
// every few seconds, and at once when the API announces a change
// (consumer.ts), so creating, changing, disabling or deleting an exporter
// needs no restart.
//
// Delivery is at least once: a batch is committed only after the destination
// accepted its matching artifacts. A failure keeps the batch and tries it
// again with backoff (consume() retries, forever, and never dead-letters:
// every failure counts as transient here), raises `exporter.failure` at most
// once per exporter per cooldown, and the recovery is logged.
import type { Config } from '../../config/env.js';
import type { Store } from '../../clickhouse/client.js';
import type { Artifact } from '../../clickhouse/tables/artifacts.js';
import { listAllExporters, type StoredExporter } from '../../clickhouse/tables/exporters.js';
import { errorMessage } from '../../lib/errors.js';
import { newId } from '../../lib/ids.js';
import { noteError } from '../../lib/recent-errors.js';
import type { Logger } from '../../lib/logger.js';
import { SecretBox } from '../../lib/secret-box.js';
import { artifactsRaw, systemEvents, type RawArtifact, type SystemEvent } from '../../topics/index.js';
import { completeArtifact, createArtifactDecoder, type ArtifactDecoder } from '../artifacts.js';
import { consume, publish, type Envelope } from '../bus/consume.js';
import type { Bus, Subscription } from '../bus/index.js';
import type { BatchContext, DeliveredMessage } from '../bus/types.js';
import type { HotState } from '../state/index.js';
import { openSender, type Sender } from './destination.js';
import { artifactFilter } from './match.js';
import { exporterMetrics } from './metrics.js';
import { describeDestination, destinationOf, hasSecrets, openSettings, type Destination } from './settings.js';

/** How often the exporter list is read again (changes through the API apply at once; this is the backstop). */
export const EXPORTER_REFRESH_MS = 5000;
const BATCH_SIZE = 500;
const BATCH_WAIT_MS = 100;

/** The stage's name, and its own consumer group (on system.events, consumer.ts). */
export const EXPORTERS_STAGE = 'exporters';
export const exporterGroup = (id: string) => `exporter-${id}`;
export const failureMarkKey = (id: string) => `exporter:failure:${id}`;

export interface RunnerParts {
  config: Config;
  store: Store;
  bus: Bus;
  state: HotState;
  logger: Logger;
}

interface Running {
  exporter: StoredExporter;
  destination: string;
  sender: Sender;
  subscription: Subscription;
}

export class ExporterRunner {
  private readonly running = new Map<string, Running>();
  /** In-process bus only: the groups of exporters stopped since this process started (see retire). */
  private readonly retired = new Map<string, Subscription>();
  /** Deleted exporters this process ran, whose consumer group is still to be forgotten (see forgetDeleted). */
  private readonly deleted = new Set<string>();
  /** Exporters whose destination is failing, since when (ms), to log the recovery. */
  private readonly failingSince = new Map<string, number>();
  private readonly box: SecretBox | null;
  private decode: ArtifactDecoder | null = null;
  private syncing: Promise<void> = Promise.resolve();
  private timer: NodeJS.Timeout | null = null;
  private stopped = false;

  constructor(private readonly parts: RunnerParts) {
    this.box = parts.config.masterKey ? new SecretBox(parts.config.masterKey) : null;
  }

  async start(): Promise<void> {
    this.decode = await createArtifactDecoder(this.parts.config.schemaRegistryUrl, this.parts.logger);
    await this.reload();
    this.schedule();
  }

  private schedule(): void {
    this.timer = setTimeout(() => {
      this.reload()
        .catch((err: unknown) => this.parts.logger.warn({ err: errorMessage(err) }, 'could not reload the exporters; keeping the ones running'))
        .finally(() => {
          if (!this.stopped) this.schedule();
        });
    }, EXPORTER_REFRESH_MS);
    this.timer.unref();
  }

  /** Brings the running exporters in line with the stored ones; one reload at a time. */
  reload(): Promise<void> {
    const next = this.syncing.then(() => this.sync());
    this.syncing = next.catch(() => {});
    return next;
  }

  private async sync(): Promise<void> {
    if (this.stopped) return;
    const stored = await listAllExporters(this.parts.store);
    const exists = new Set(stored.map((e) => e.id));
    const wanted = new Map(stored.filter((e) => e.enabled).map((e) => [e.id, e]));
    for (const [id, run] of this.running) {
      const current = wanted.get(id);
      if (current && current.updated_at === run.exporter.updated_at) continue;
      await this.stopExporter(id);
      if (!current && exists.has(id)) await this.retire(id);
      else if (!current) this.deleted.add(id);
    }
    for (const [id, subscription] of this.retired) {
      if (exists.has(id)) continue;
      await subscription.stop();
      this.retired.delete(id);
      this.deleted.add(id);
    }
    await this.forgetDeleted();
    for (const exporter of wanted.values()) {
      if (this.running.has(exporter.id) || this.stopped) continue;
      try {
        await this.startExporter(exporter);
      } catch (err) {
        this.parts.logger.warn({ exporter: exporter.id, name: exporter.name, err: errorMessage(err) }, 'could not start the exporter; trying again at the next reload');
      }
    }
    await this.updateLag();
  }

  private async startExporter(exporter: StoredExporter): Promise<void> {
    const { bus, config, logger } = this.parts;
    const retired = this.retired.get(exporter.id);
    if (retired) {
      await retired.stop();
      this.retired.delete(exporter.id);
    }
    const destination = destinationOf(exporter.type, this.openSecrets(exporter));
    const matches = artifactFilter(exporter, config.logTimezone);
    const sender = openSender(destination, config.outbound, logger.child({ exporter: exporter.id }));
    try {
      const subscription = await consume<RawArtifact | null>({
        bus,
        topic: artifactsRaw,
        group: exporterGroup(exporter.id),
        logger: logger.child({ exporter: exporter.id, name: exporter.name }),
        maxBatchSize: BATCH_SIZE,
        maxWaitMs: BATCH_WAIT_MS,
        decode: (message) => this.decodeOrSkip(message),
        // A destination that refuses is never the artifact's fault: wait for it, never dead-letter.
        isTransient: () => true,
        handle: (batch, ctx) => this.deliver(exporter, destination, sender, matches, batch, ctx),
      });
      this.running.set(exporter.id, { exporter, destination: describeDestination(destination), sender, subscription });
      logger.info({ exporter: exporter.id, name: exporter.name, destination: describeDestination(destination) }, 'exporter started');
    } catch (err) {
      await sender.close();
      throw err;
    }
  }

  private openSecrets(exporter: StoredExporter): Record<string, unknown> {
    if (this.box) return openSettings(this.box, exporter.type, exporter.settings);
    // Only an exporter with a secret needs the key: without it, those alone fail.
    if (hasSecrets(exporter.type, exporter.settings)) throw new Error('opening the exporter\'s secrets needs CAIRN_MASTER_KEY');
    return exporter.settings;
  }

  /** What the store stage dead-letters (it does not decode) an exporter skips: one dead letter per message is enough. */
  private decodeOrSkip(message: DeliveredMessage): RawArtifact | null | Promise<RawArtifact | null> {
    try {
      const value = this.decode!(message);
      return value instanceof Promise ? value.catch(() => null) : value;
    } catch {
      return null;
    }
  }

  private async deliver(
    exporter: StoredExporter,
    destination: Destination,
    sender: Sender,
    matches: (artifact: Artifact) => boolean,
    batch: Envelope<RawArtifact | null>[],
    ctx: BatchContext,
  ): Promise<void> {
    const activeSince = Date.parse(exporter.active_since);
    const selected: Artifact[] = [];
    for (const { value, message } of batch) {
      // Only what reached the bus while the exporter was active, and only its own organization's.
      if (value === null || message.timestamp < activeSince) continue;
      const artifact = completeArtifact(value, message, this.parts.config.orgId);
      if (artifact.org_id === exporter.org_id && matches(artifact)) selected.push(artifact);
    }
    const labels = { exporter: exporter.id };
    if (selected.length > 0) {
      try {
        await sender.send(selected, ctx.signal);
      } catch (err) {
        if (ctx.signal.aborted) throw err;
        exporterMetrics.artifacts.inc({ ...labels, outcome: 'failed' }, selected.length);
        // The stage's health (GET /v1/health/containers/exporters) lists its exporters' latest errors.
        noteError(EXPORTERS_STAGE, `exporter "${exporter.name}" (${exporter.id}): ${errorMessage(err)}`);
        await this.reportFailure(exporter, destination, selected.length, err);
        throw err;
      }
      exporterMetrics.artifacts.inc({ ...labels, outcome: 'sent' }, selected.length);
      this.noteRecovery(exporter, destination);
    }
    if (batch.length > selected.length) exporterMetrics.artifacts.inc({ ...labels, outcome: 'skipped' }, batch.length - selected.length);
  }

  /** Raises exporter.failure unless this exporter raised one within its cooldown (hot state, so across restarts and workers). */
  private async reportFailure(exporter: StoredExporter, destination: Destination, waiting: number, err: unknown): Promise<void> {
    const { bus, state, logger } = this.parts;
    if (!this.failingSince.has(exporter.id)) this.failingSince.set(exporter.id, Date.now());
    const error = errorMessage(err);
    const where = describeDestination(destination);
    const key = failureMarkKey(exporter.id);
    try {
      if (!(await state.setIfAbsent(key, new Date().toISOString(), exporter.failure_cooldown_minutes * 60_000))) return;
      const event: SystemEvent = {
        id: newId(),
        type: 'exporter.failure',
        org_id: exporter.org_id,
        occurred_at: new Date().toISOString(),
        severity: 'error',
        summary: `exporter "${exporter.name}" cannot deliver to ${where}: ${error}`,
        details: {
          exporter_id: exporter.id,
          exporter_name: exporter.name,
          destination_type: exporter.type,
          destination: where,
          error,
          waiting_artifacts: waiting,
          cooldown_minutes: exporter.failure_cooldown_minutes,
        },
      };
      try {
        await publish(bus, systemEvents, [event]);
      } catch (publishErr) {
        await state.delete(key); // not raised: let the next failure try again
        throw publishErr;
      }
      logger.warn({ exporter: exporter.id, name: exporter.name, destination: where, err: error }, 'exporter failing: exporter.failure raised; it waits and tries again');
    } catch (reportErr) {
      // The delivery failure is what matters; it is retried (and reported) again.
      logger.warn({ exporter: exporter.id, err: errorMessage(reportErr) }, 'could not raise exporter.failure');
    }
  }

  private noteRecovery(exporter: StoredExporter, destination: Destination): void {
    const since = this.failingSince.get(exporter.id);
    if (since === undefined) return;
    this.failingSince.delete(exporter.id);
    this.parts.logger.info(
      { exporter: exporter.id, name: exporter.name, destination: describeDestination(destination), failedForSeconds: Math.round((Date.now() - since) / 1000) },
      'exporter recovered: the destination accepts artifacts again',
    );
  }

  private async stopExporter(id: string): Promise<void> {
    const run = this.running.get(id);
    if (!run) return;
    this.running.delete(id);
    this.failingSince.delete(id);
    await run.subscription.stop();
    await run.sender.close();
    exporterMetrics.lag.remove({ exporter: id });
    this.parts.logger.info({ exporter: id, name: run.exporter.name }, 'exporter stopped');
  }

  /**
   * In the in-process bus a group that subscribed once counts for retention
   * until the process restarts (the topic keeps it among its consumers), so
   * the group of a disabled exporter would keep every later artifacts.raw
   * segment on disk. Until the restart, or until the exporter is deleted
   * (and its group forgotten), it follows the topic without sending: nothing
   * is lost by it, since a re-enabled exporter forwards only what arrives
   * after (active_since). Kafka keeps by its own retention, so there the
   * group is simply left.
   */
  private async retire(id: string): Promise<void> {
    const { bus } = this.parts;
    if (bus.kind !== 'local' || this.retired.has(id) || this.stopped) return;
    this.retired.set(id, await bus.subscribe({ group: exporterGroup(id), topic: artifactsRaw.name, maxBatchSize: 5000, maxWaitMs: 1000, handler: async () => {} }));
  }

  /**
   * A deleted exporter's group will never consume again: the bus forgets it
   * (its offsets, and in the in-process bus its hold on retention), and its
   * failure mark goes with it. On Kafka, another worker may still be a
   * member until its own reload: the last to leave succeeds, and one that
   * fails tries again at the next reload. Exporters deleted while no process ran them keep their group
   * until the broker expires it (offsets.retention.minutes); in the
   * in-process bus such a group holds nothing back after a restart.
   */
  private async forgetDeleted(): Promise<void> {
    for (const id of this.deleted) {
      try {
        await this.parts.bus.forgetGroup(exporterGroup(id));
        await this.parts.state.delete(failureMarkKey(id));
        this.deleted.delete(id);
        this.parts.logger.info({ exporter: id, group: exporterGroup(id) }, 'deleted exporter\'s consumer group forgotten');
      } catch (err) {
        this.parts.logger.debug({ exporter: id, err: errorMessage(err) }, 'could not forget the deleted exporter\'s consumer group yet; trying again at the next reload');
      }
    }
  }

  private async updateLag(): Promise<void> {
    for (const id of this.running.keys()) {
      try {
        exporterMetrics.lag.set({ exporter: id }, await this.parts.bus.lag(exporterGroup(id), artifactsRaw.name));
      } catch {
        // A lag reading that fails (a Kafka leader moving) keeps the last one until the next reload.
      }
    }
  }

  async stop(): Promise<void> {
    this.stopped = true;
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
    await this.syncing;
    for (const id of [...this.running.keys()]) await this.stopExporter(id);
    for (const subscription of this.retired.values()) await subscription.stop();
    this.retired.clear();
  }
}
