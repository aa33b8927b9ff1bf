// Parser + enricher throughput per core: the stage steps (parseBatch,
// enrichBatch) on batches of 5,000 artifacts, without the bus or the store,
// in one thread; on the real sample mix, then on Windows events and on Zeek
// lines (windows-zeek.ts: generated in every shipping form, plus Elastic's
// pipeline test inputs of those packages when the samples have them).
//
// With rules (every rule of the shipped pack, rules/pack/, or of the pack
// folder in `--rules <folder>`; `--no-rules` for none), each set is also run through the
// analysis worker's step (pipeline/analysis/analyse.ts: decode, parse,
// enrich, match the lead rules, encode rows, in slices of 100 as the fused
// pipeline runs it) without rules and with them, turn about, for the cost of
// the rules per event and per rule.
//
//   node --import tsx bench/parse-enrich.ts [--seconds 20] [--set mix|windows|zeek|all] [--rules <pack folder> | --no-rules]
import path from 'node:path';
import { parseArgs } from 'node:util';
import type { LeadRule } from '../clickhouse/tables/lead-rules.js';
import type { Envelope } from '../pipeline/bus/consume.js';
import { enrichBatch } from '../pipeline/enricher/consumer.js';
import { geoIp } from '../pipeline/geoip/geoip.js';
import { analyse } from '../pipeline/analysis/analyse.js';
import { packMessages, type PackedMessages } from '../pipeline/analysis/packed-messages.js';
import { parseBatch } from '../pipeline/parser/parse-batch.js';
import { leadRuleOf, loadPack, PACK_DIR } from '../rules/pack.js';
import type { RawArtifact } from '../topics/index.js';
import { loadSamples, machineLine, REPO, type SampleLine } from './lib.js';
import { windowsLines, zeekLines } from './windows-zeek.js';

const { values: args } = parseArgs({
  options: { seconds: { type: 'string', default: '20' }, set: { type: 'string', default: 'all' }, rules: { type: 'string' }, 'no-rules': { type: 'boolean', default: false } },
});
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

/**
 * The lead rules to measure: every rule of the shipped pack (rules/pack), or
 * of the pack in `--rules <folder>` (same layout), each enabled, as an
 * organization's copies; none with `--no-rules`.
 */
function benchRules(): { rules: LeadRule[]; from: string } | null {
  if (args['no-rules']) return null;
  const dir = args.rules ?? PACK_DIR;
  const pack = loadPack(dir);
  const now = new Date().toISOString();
  const rules = pack.rules.map((rule) => ({ ...leadRuleOf(rule, pack.version, 'bench', now), enabled: true }));
  return { rules, from: `${path.relative(REPO, dir) || dir}, version ${pack.version}` };
}

const ruleSet = benchRules();

/** CPU time of this process in ms: unlike the wall clock, it does not count time the thread waited for a core other processes held. */
function cpuMs(): number {
  const { user, system } = process.cpuUsage();
  return (user + system) / 1000;
}

function run(batches: Envelope<RawArtifact>[][], seconds: number) {
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

async function report(name: string, sample: readonly SampleLine[], from: string): Promise<void> {
  const batches = batchesOf(sample);
  console.log(`\n${name}: ${sample.length} lines from ${from}, batches of ${BATCH}, one thread`);
  run(batches, 3); // warm-up: JIT, caches
  const r = run(batches, Number(args.seconds));
  const seconds = (r.parseMs + r.enrichMs) / 1000;
  console.log(`${r.events} events in ${seconds.toFixed(1)} s of work: ${Math.round(r.events / seconds)} events/s per core (parse + enrich)`);
  console.log(`  parse ${(r.parseMs * 1000 / r.events).toFixed(1)} µs/event, enrich ${(r.enrichMs * 1000 / r.events).toFixed(1)} µs/event`);
  console.log(`  CPU time: ${Math.round(r.events / (r.cpuMs / 1000))} events per CPU-second (all threads of the process; steadier than the wall clock on a busy machine)`);
  console.log(`  ${(r.entities / r.events).toFixed(2)} entities and ${(r.edges / r.events).toFixed(2)} edges per event; ${((100 * r.failed) / r.events).toFixed(2)}% did not parse`);
  if (ruleSet) await reportWorker(batches, ruleSet.rules);
}

/** The batches as the fused pipeline's worker gets them: messages of JSON artifacts, packed. */
function workerTasks(batches: Envelope<RawArtifact>[][]): PackedMessages[] {
  return batches.map((batch) =>
    packMessages(batch.map(({ value, message }) => ({ ...message, value: Buffer.from(JSON.stringify({ source: value.source, raw: value.raw })) }))),
  );
}

/**
 * Events per CPU-second through the analysis worker's step with these
 * rules, over `seconds` of CPU time, and matches per event. CPU time, as the
 * wall clock on a shared machine counts the time other processes held the
 * core (it swung 12,000-22,000/s between rounds of the same work).
 */
async function runWorker(tasks: PackedMessages[], rules: LeadRule[], generation: number, seconds: number): Promise<{ perSecond: number; matchesPerEvent: number }> {
  let events = 0;
  let matches = 0;
  const cpu0 = cpuMs();
  for (let i = 0; cpuMs() - cpu0 < seconds * 1000; i++) {
    const result = await analyse({ messages: tasks[i % tasks.length]!, defaultOrgId: 'bench', timezone: 'UTC', rules: { generation, rules } });
    if (result === 'stale') throw new Error('no matcher was named: a task cannot be stale');
    events += tasks[i % tasks.length]!.valueEnds.length;
    matches += result.matches.length;
  }
  return { perSecond: events / ((cpuMs() - cpu0) / 1000), matchesPerEvent: matches / events };
}

async function reportWorker(batches: Envelope<RawArtifact>[][], rules: LeadRule[]): Promise<void> {
  const tasks = workerTasks(batches);
  await runWorker(tasks, rules, 1, 2); // warm-up: JIT with the rules
  await runWorker(tasks, [], 2, 2);
  // Turn about, so a change in what the machine's other processes take falls on both.
  const rounds = 3;
  const without: number[] = [];
  const withRules: number[] = [];
  let matchesPerEvent = 0;
  for (let round = 0; round < rounds; round++) {
    without.push((await runWorker(tasks, [], 3 + 2 * round, Number(args.seconds) / (2 * rounds))).perSecond);
    const run = await runWorker(tasks, rules, 4 + 2 * round, Number(args.seconds) / (2 * rounds));
    withRules.push(run.perSecond);
    matchesPerEvent = run.matchesPerEvent;
  }
  const mean = (xs: number[]) => xs.reduce((a, b) => a + b, 0) / xs.length;
  const [a, b] = [mean(without), mean(withRules)];
  const ruleUs = 1e6 / b - 1e6 / a;
  console.log(`  analysis worker step (decode, parse, enrich, match, encode; slices of 100), one thread, ${rounds} rounds each:`);
  console.log(`    without rules ${Math.round(a)} events per CPU-second (${without.map(Math.round).join(', ')})`);
  console.log(`    with ${rules.length} lead rules (${ruleSet!.from}) ${Math.round(b)} events per CPU-second (${withRules.map(Math.round).join(', ')}): ${((100 * (b - a)) / a).toFixed(1)}%`);
  console.log(`    the rules cost ${ruleUs.toFixed(2)} µs/event, ${((1000 * ruleUs) / rules.length).toFixed(0)} ns per rule per event; ${matchesPerEvent.toFixed(3)} matches per event`);
}

console.log('parse + enrich benchmark');
console.log(machineLine());
if (args.set === 'all' || args.set === 'mix') await report('sample mix', lines, dir);
if (args.set === 'all' || args.set === 'windows') await report('Windows events (Winlogbeat, NXLog, XML, Snare)', windowsLines(dir), 'bench/windows-zeek.ts, and the elastic-integrations windows and system/security inputs when present');
if (args.set === 'all' || args.set === 'zeek') await report('Zeek (JSON and TSV)', zeekLines(dir), 'bench/windows-zeek.ts, and the elastic-integrations zeek inputs when present');
