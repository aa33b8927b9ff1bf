// Detection latency: from POST /v1/artifacts of an event that fires a lead
// rule until the incident is visible at GET /v1/incidents, p50 and p99, in
// the embedded default and with Kafka. Background load from the sample logs
// keeps the pipeline busy meanwhile.
//
//   node --import tsx bench/incident-latency.ts [--mode embedded|kafka|both] [--events 200] [--background 5000] [--poll 20] [--warmup 10]
//   --warmup: seconds of background load before the first probe, so that the figures are those of the steady
//   state, not of the start (workers loading GeoIP, the first merges, a backlog from the first second).
//   --poll: ms between two reads of the incident list while a probe waits. Each read is two statements (a page
//   and its count), so a short interval adds load of its own; a long one adds up to itself to each figure.
import { randomUUID } from 'node:crypto';
import { parseArgs } from 'node:util';
import { startKafka } from '../test/services/kafka.js';
import { benchToken, loadSamples, machineLine, percentile, startCairn, type CairnProcess, type SampleLine } from './lib.js';

const { values: args } = parseArgs({
  options: {
    mode: { type: 'string', default: 'both' },
    events: { type: 'string', default: '200' },
    background: { type: 'string', default: '5000' },
    poll: { type: 'string', default: '20' },
    warmup: { type: 'string', default: '10' },
  },
});
const EVENTS = Number(args.events);
/** Background artifacts per second from the samples, alongside the probes. */
const BACKGROUND_RATE = Number(args.background);
const POLL_MS = Number(args.poll);
const WARMUP_MS = Number(args.warmup) * 1000;

async function api<T>(cairn: CairnProcess, token: string, method: string, path: string, body?: unknown): Promise<T> {
  const res = await fetch(`${cairn.url}${path}`, {
    method,
    headers: { authorization: `Bearer ${token}`, ...(body ? { 'content-type': 'application/json' } : {}) },
    body: body ? JSON.stringify(body) : undefined,
  });
  if (!res.ok) throw new Error(`${method} ${path} answered ${res.status}: ${await res.text()}`);
  return ((await res.json()) as { data: T }).data;
}

/** Probe latencies, and the background rate cairn took meanwhile (a post waits for the one before it). */
async function run(mode: 'embedded' | 'kafka', samples: SampleLine[]): Promise<{ latencies: number[]; backgroundRate: number }> {
  const kafka = mode === 'kafka' ? await startKafka() : null;
  const cairn = await startCairn({ ...(kafka ? { CAIRN_KAFKA_BROKERS: kafka.address } : {}), CAIRN_RULE_REFRESH_MS: '500' });
  const token = benchToken();
  try {
    await api(cairn, token, 'POST', '/api/v1/lead-rules', { name: 'bench probe', severity: 'high', conditions: { pattern: 'benchprobe', source: 'probe' } });
    await new Promise((r) => setTimeout(r, 1500));

    let running = true;
    let cursor = 0;
    const backgroundStart = Date.now();
    const background = (async () => {
      while (running && BACKGROUND_RATE > 0) {
        const started = Date.now();
        const batch = Array.from({ length: BACKGROUND_RATE / 10 }, () => samples[cursor++ % samples.length]!);
        await api(cairn, token, 'POST', '/api/v1/artifacts', { artifacts: batch.map((l) => ({ source: l.source, raw: l.raw })) });
        await new Promise((r) => setTimeout(r, Math.max(0, 100 - (Date.now() - started))));
      }
    })();
    const stopBackground = async () => {
      running = false;
      await background;
    };
    try {
      await new Promise((r) => setTimeout(r, WARMUP_MS));
      const latencies = await probe(cairn, token);
      return { latencies, backgroundRate: cursor / ((Date.now() - backgroundStart) / 1000) };
    } finally {
      await stopBackground();
    }
  } finally {
    await cairn.stop();
    await kafka?.stop();
  }
}

/** Posts probe events one at a time and times each until its incident is listed. */
async function probe(cairn: CairnProcess, token: string): Promise<number[]> {
  {
    const latencies: number[] = [];
    const run = randomUUID().charCodeAt(0) % 200;
    for (let i = 0; i < EVENTS; i++) {
      // New addresses at both ends each time: no shared node, so each probe opens its own incident.
      const ip = `10.${run}.${(i >> 8) & 255}.${i & 255}`;
      const raw = JSON.stringify({ message: `benchprobe ${i}`, source: { ip }, destination: { ip: `172.16.${(i >> 8) & 255}.${i & 255}` } });
      const posted = Date.now();
      await api(cairn, token, 'POST', '/api/v1/artifacts', { artifacts: [{ source: 'probe', raw }] });
      for (;;) {
        const { incidents } = await api<{ incidents: { title: string }[] }>(cairn, token, 'GET', '/api/v1/incidents?limit=5');
        if (incidents.some((inc) => inc.title.includes(ip))) break;
        if (Date.now() - posted > 60_000) throw new Error(`no incident for probe ${i} after 60 s`);
        await new Promise((r) => setTimeout(r, POLL_MS));
      }
      latencies.push(Date.now() - posted);
    }
    return latencies;
  }
}

const { lines: samples } = loadSamples();
console.log(`incident latency: ${EVENTS} probes per mode, background load ${BACKGROUND_RATE} artifacts/s from ${WARMUP_MS / 1000} s before the first; poll interval ${POLL_MS} ms`);
console.log(machineLine());
for (const mode of args.mode === 'both' ? (['embedded', 'kafka'] as const) : ([args.mode] as ['embedded' | 'kafka'])) {
  const { latencies, backgroundRate } = await run(mode, samples);
  console.log(`[${mode}] event posted -> incident visible: p50 ${percentile(latencies, 50)} ms, p99 ${percentile(latencies, 99)} ms, max ${Math.max(...latencies)} ms; background taken ${Math.round(backgroundRate)}/s`);
}
