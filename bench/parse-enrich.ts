// Parser + enricher throughput per core: the stage steps (parseBatch,
// enrichBatch) on batches of 5,000 artifacts, without the bus or the store,
// in one thread; on the real sample mix, then on Windows events and on Zeek
// lines (windows-zeek.ts: generated in every shipping form, plus Elastic's
// pipeline test inputs of those packages when the samples have them).
//
//   node --import tsx bench/parse-enrich.ts [--seconds 20] [--set mix|windows|zeek|all]
import { parseArgs } from 'node:util';
import type { Envelope } from '../pipeline/bus/consume.js';
import { enrichBatch } from '../pipeline/enricher/consumer.js';
import { geoIp } from '../pipeline/geoip/geoip.js';
import { parseBatch } from '../pipeline/parser/parse-batch.js';
import type { RawArtifact } from '../topics/index.js';
import { loadSamples, machineLine, type SampleLine } from './lib.js';
import { windowsLines, zeekLines } from './windows-zeek.js';

const { values: args } = parseArgs({ options: { seconds: { type: 'string', default: '20' }, set: { type: 'string', default: 'all' } } });
const { lines, dir } = loadSamples();
const BATCH = 5000;
const now = Date.now();
// Loaded before the clock starts, as every process does at start.
const geo = geoIp();

function batchesOf(sample: readonly SampleLine[]): Envelope<RawArtifact>[][] {
  const batches: Envelope<RawArtifact>[][] = [];
  for (let b = 0; b < 20; b++) {
    batches.push(
      Array.from({ length: BATCH }, (_, i) => {
        const line = sample[(b * BATCH + i) % sample.length]!;
        return {
          value: { source: line.source, raw: line.raw },
          message: { topic: 'artifacts.raw', partition: 0, offset: String(b * BATCH + i), key: null, value: Buffer.alloc(0), headers: {}, timestamp: now },
        };
      }),
    );
  }
  return batches;
}

/** CPU time of this process in ms: unlike the wall clock, it does not count time the thread waited for a core other processes held. */
function cpuMs(): number {
  const { user, system } = process.cpuUsage();
  return (user + system) / 1000;
}

function run(batches: Envelope<RawArtifact>[][], seconds: number): { events: number; failed: number; parseMs: number; enrichMs: number; cpuMs: number; entities: number; edges: number } {
  const totals = { events: 0, failed: 0, parseMs: 0, enrichMs: 0, cpuMs: 0, entities: 0, edges: 0 };
  const cpu0 = cpuMs();
  const deadline = performance.now() + seconds * 1000;
  for (let i = 0; performance.now() < deadline; i++) {
    const batch = batches[i % batches.length]!;
    const t0 = performance.now();
    const parsed = parseBatch(batch, { defaultOrgId: 'bench', timezone: 'UTC', geo });
    const t1 = performance.now();
    const enriched = enrichBatch(parsed.events);
    const t2 = performance.now();
    totals.events += batch.length;
    totals.failed += parsed.deadLetters.length;
    totals.parseMs += t1 - t0;
    totals.enrichMs += t2 - t1;
    totals.entities += enriched.events.reduce((n, e) => n + e.entities.length, 0);
    totals.edges += enriched.sightings.length;
  }
  totals.cpuMs = cpuMs() - cpu0;
  return totals;
}

function report(name: string, sample: readonly SampleLine[], from: string): void {
  const batches = batchesOf(sample);
  console.log(`\n${name}: ${sample.length} lines from ${from}, batches of ${BATCH}, one thread`);
  run(batches, 3); // warm-up: JIT, caches
  const r = run(batches, Number(args.seconds));
  const seconds = (r.parseMs + r.enrichMs) / 1000;
  console.log(`${r.events} events in ${seconds.toFixed(1)} s of work: ${Math.round(r.events / seconds)} events/s per core (parse + enrich)`);
  console.log(`  parse ${(r.parseMs * 1000 / r.events).toFixed(1)} µs/event, enrich ${(r.enrichMs * 1000 / r.events).toFixed(1)} µs/event`);
  console.log(`  CPU time: ${Math.round(r.events / (r.cpuMs / 1000))} events per CPU-second (all threads of the process; steadier than the wall clock on a busy machine)`);
  console.log(`  ${(r.entities / r.events).toFixed(2)} entities and ${(r.edges / r.events).toFixed(2)} edges per event; ${((100 * r.failed) / r.events).toFixed(2)}% did not parse`);
}

console.log('parse + enrich benchmark');
console.log(machineLine());
if (args.set === 'all' || args.set === 'mix') report('sample mix', lines, dir);
if (args.set === 'all' || args.set === 'windows') report('Windows events (Winlogbeat, NXLog, XML, Snare)', windowsLines(dir), 'bench/windows-zeek.ts, and the elastic-integrations windows and system/security inputs when present');
if (args.set === 'all' || args.set === 'zeek') report('Zeek (JSON and TSV)', zeekLines(dir), 'bench/windows-zeek.ts, and the elastic-integrations zeek inputs when present');
