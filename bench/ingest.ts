// End-to-end ingest benchmark: artifacts/s from POST /v1/artifacts until
// searchable, sustained, with ingest-to-searchable latency, peak RSS of the
// cairn process, and in the same run the raw limit (the same rows inserted
// straight into the store).
//
//   node --import tsx bench/ingest.ts [--mode embedded|kafka|both] [--seconds 60] [--rate 20000] [--batch 2000] [--senders 2]
//   --rate caps the offered load in artifacts/s (0: as fast as cairn takes them); latency is
//   meaningful at a given rate, the maximum throughput at rate 0.
//   CAIRN_SAMPLES_DIR=../shared/data selects the sample logs (default: ../shared/data beside the repo).
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { randomUUID } from 'node:crypto';
import { openStore } from '../clickhouse/client.js';
import { migrate } from '../clickhouse/migrate.js';
import { insertArtifacts, type Artifact } from '../clickhouse/tables/artifacts.js';
import { startKafka } from '../test/services/kafka.js';
import { benchToken, cpuGrowth, loadSamples, machineLine, percentile, startCairn, type SampleLine } from './lib.js';

const { values: args } = parseArgs({
  options: {
    mode: { type: 'string', default: 'both' },
    seconds: { type: 'string', default: '60' },
    batch: { type: 'string', default: '2000' },
    senders: { type: 'string', default: '2' },
    rate: { type: 'string', default: '0' },
  },
});
const SECONDS = Number(args.seconds);
const BATCH = Number(args.batch);
const SENDERS = Number(args.senders);
const RATE = Number(args.rate);
const MARKER_SOURCE = 'bench-marker';

interface IngestResult {
  mode: string;
  sent: number;
  sendSeconds: number;
  endToEndSeconds: number;
  latencies: number[];
  /** Seconds from the start until the last marker's observation existed: every stage done. */
  throughSeconds: number;
  peakRssMiB: number;
  rejected429: number;
  /** CPU the cairn process used from the first POST to the last observation, by thread (bench/lib.ts threadCpuSeconds). */
  cpu: string[];
}

async function post(url: string, token: string, artifacts: unknown[]): Promise<Response> {
  return fetch(`${url}/api/v1/artifacts`, {
    method: 'POST',
    headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
    body: JSON.stringify({ artifacts }),
  });
}

async function total(url: string, token: string, query = ''): Promise<number> {
  const res = await fetch(`${url}/api/v1/artifacts?limit=1&exact_total=true${query}`, { headers: { authorization: `Bearer ${token}` } });
  return ((await res.json()) as { data: { total: number } }).data.total;
}

/** A marker: an sshd line the bench's lead rule fires on, unique by its user name. */
function markerLine(id: string, at: number): string {
  const date = new Date(at);
  const time = `${date.toUTCString().slice(8, 11)} ${String(date.getUTCDate()).padStart(2, ' ')} ${date.toISOString().slice(11, 19)}`; // "Nov  3 16:45:16"
  return `${time} benchhost sshd[4242]: Failed password for invalid user bm${id.replaceAll('-', '')} from 10.9.9.9 port 22 ssh2`;
}

async function observationCount(url: string, token: string): Promise<number> {
  const res = await fetch(`${url}/api/v1/observations?limit=1`, { headers: { authorization: `Bearer ${token}` } });
  return ((await res.json()) as { data: { total: number } }).data.total;
}

async function runPipeline(mode: 'embedded' | 'kafka', samples: SampleLine[]): Promise<IngestResult> {
  const kafka = mode === 'kafka' ? await startKafka() : null;
  const cairn = await startCairn(kafka ? { CAIRN_KAFKA_BROKERS: kafka.address, CAIRN_KAFKA_PARTITIONS: '2' } : {});
  const token = benchToken();
  try {
    // Every marker becomes an observation once the parser, enricher and rule work on it is done.
    const rule = await fetch(`${cairn.url}/api/v1/lead-rules`, {
      method: 'POST',
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
      body: JSON.stringify({ name: 'bench marker', severity: 'low', conditions: { source: MARKER_SOURCE, pattern: 'Failed password' } }),
    });
    if (rule.status !== 201) throw new Error(`creating the marker rule answered ${rule.status}: ${await rule.text()}`);
    let markersSent = 0;
    const markers = new Map<string, number>(); // marker id -> time its POST started
    const latencies: number[] = [];
    let sent = 0;
    let rejected429 = 0;
    let cursor = 0;
    const cpuBefore = cairn.cpuByThread();
    const started = Date.now();
    const deadline = started + SECONDS * 1000;

    const sender = async () => {
      while (Date.now() < deadline) {
        if (RATE > 0) {
          // Pace: the batch may start once the artifacts already sent are due at this rate.
          const due = started + ((sent + BATCH * (SENDERS - 1)) / RATE) * 1000;
          if (due > Date.now()) await new Promise((r) => setTimeout(r, due - Date.now()));
        }
        const marker = randomUUID();
        const postStarted = Date.now();
        const markerRaw = markerLine(marker, postStarted);
        const artifacts: unknown[] = [{ source: MARKER_SOURCE, raw: markerRaw, timestamp: new Date(postStarted).toISOString() }];
        for (let i = 1; i < BATCH; i++) {
          const line = samples[cursor++ % samples.length]!;
          artifacts.push({ source: line.source, raw: line.raw });
        }
        const res = await post(cairn.url, token, artifacts);
        if (res.status === 429) {
          rejected429++;
          await new Promise((r) => setTimeout(r, 100));
          continue;
        }
        if (res.status !== 202) throw new Error(`ingest answered ${res.status}: ${await res.text()}`);
        await res.arrayBuffer();
        markers.set(markerRaw, postStarted);
        markersSent++;
        sent += artifacts.length;
      }
    };

    // Polls for markers that became searchable, 50 ms apart. A marker counts as seen when the poll that found it
    // answered, so each figure includes that poll's own time (a page and its count: 50-300 ms under load): upper bounds.
    let polling = true;
    const poller = (async () => {
      while (polling || markers.size > 0) {
        const oldest = Math.min(...markers.values());
        if (Number.isFinite(oldest)) {
          const since = new Date(oldest - 1000).toISOString();
          const res = await fetch(`${cairn.url}/api/v1/artifacts?source=${MARKER_SOURCE}&limit=1000&start=${encodeURIComponent(since)}`, {
            headers: { authorization: `Bearer ${token}` },
          });
          const seenAt = Date.now();
          for (const a of ((await res.json()) as { data: { artifacts: { raw: string }[] } }).data.artifacts) {
            const sentAt = markers.get(a.raw);
            if (sentAt !== undefined) {
              latencies.push(seenAt - sentAt);
              markers.delete(a.raw);
            }
          }
        }
        if (!polling && Date.now() > deadline + 120_000) throw new Error(`${markers.size} markers never became searchable`);
        await new Promise((r) => setTimeout(r, 50));
      }
    })();

    await Promise.all(Array.from({ length: SENDERS }, sender));
    const sendSeconds = (Date.now() - started) / 1000;
    while ((await total(cairn.url, token)) < sent) await new Promise((r) => setTimeout(r, 100));
    const endToEndSeconds = (Date.now() - started) / 1000;
    polling = false;
    await poller;
    while ((await observationCount(cairn.url, token)) < markersSent) {
      if (Date.now() > deadline + 600_000) throw new Error('the markers never all became observations');
      await new Promise((r) => setTimeout(r, 200));
    }
    const throughSeconds = (Date.now() - started) / 1000;
    const cpu = cpuGrowth(cpuBefore, cairn.cpuByThread());
    return { mode, sent, sendSeconds, endToEndSeconds, throughSeconds, latencies, peakRssMiB: cairn.peakRssMiB(), rejected429, cpu };
  } finally {
    await cairn.stop();
    await kafka?.stop();
  }
}

/** The same rows, straight into a fresh embedded store in batches like the store stage's. */
async function runRawInsert(samples: SampleLine[], rows: number): Promise<number> {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'cairn-bench-raw-'));
  const store = await openStore({ clickhouse: { user: 'default', password: '', database: 'cairn' }, dataDir });
  try {
    await migrate(store);
    const started = Date.now();
    const now = new Date().toISOString();
    for (let done = 0; done < rows; ) {
      const batch: Artifact[] = [];
      for (let i = 0; i < 20_000 && done < rows; i++, done++) {
        const line = samples[done % samples.length]!;
        batch.push({ id: randomUUID(), org_id: 'default', source: line.source, raw: line.raw, timestamp: now, metadata: {}, created_at: now });
      }
      await insertArtifacts(store, batch);
    }
    return rows / ((Date.now() - started) / 1000);
  } finally {
    await store.close();
    fs.rmSync(dataDir, { recursive: true, force: true });
  }
}

const { lines: samples, dir } = loadSamples();
console.log(
  `ingest benchmark: ${SECONDS} s per mode, ${RATE ? `offered ${RATE}/s` : 'as fast as accepted'}, ${SENDERS} senders x ${BATCH} artifacts per POST, ${samples.length} sample lines from ${dir}`,
);
console.log(machineLine());
const modes = args.mode === 'both' ? (['embedded', 'kafka'] as const) : ([args.mode] as ['embedded' | 'kafka']);
for (const mode of modes) {
  const result = await runPipeline(mode, samples);
  const rawRate = await runRawInsert(samples, result.sent);
  const e2eRate = result.sent / result.endToEndSeconds;
  console.log(
    [
      `\n[${mode}] ${result.sent} artifacts: offered ${Math.round(result.sent / result.sendSeconds)}/s over ${result.sendSeconds.toFixed(1)} s,`,
      `searchable ${Math.round(e2eRate)}/s end to end (${result.endToEndSeconds.toFixed(1)} s until the last one was searchable)`,
      `  through every stage ${Math.round(result.sent / result.throughSeconds)}/s (${result.throughSeconds.toFixed(1)} s until the last marker was an observation)`,
      `  ingest-to-searchable latency over ${result.latencies.length} markers: p50 ${percentile(result.latencies, 50)} ms, p99 ${percentile(result.latencies, 99)} ms, max ${Math.max(...result.latencies)} ms`,
      `  peak RSS of the cairn process: ${Math.round(result.peakRssMiB)} MiB; 429 answers: ${result.rejected429}`,
      `  cairn CPU until then, by thread: ${result.cpu.join(', ')}`,
      `  raw limit (same rows straight into the store, 20k per insert): ${Math.round(rawRate)}/s; pipeline/raw = ${(e2eRate / rawRate).toFixed(2)}`,
    ].join('\n'),
  );
}
