// Cost of each lead rule of a pack on parsed events: the rule matching step
// (pipeline/leads/evaluate.ts findMatches) with one rule at a time, over the
// sample mix, Windows events and Zeek lines parsed and enriched once, less the
// step with a rule no event meets. Shows which rules the pack's cost comes from.
//
//   node --import tsx bench/rule-cost.ts [--rules <pack folder>] [--top 15]
import { parseArgs } from 'node:util';
import { enrichBatch } from '../pipeline/enricher/consumer.js';
import { geoIp } from '../pipeline/geoip/geoip.js';
import { findMatches } from '../pipeline/leads/evaluate.js';
import { CompiledRules, compileRule, type CompiledRule } from '../pipeline/leads/rules.js';
import { parseBatch } from '../pipeline/parser/parse-batch.js';
import { leadRuleOf, loadPack, PACK_DIR } from '../rules/pack.js';
import type { EnrichedEvent } from '../topics/index.js';
import { loadSamples } from './lib.js';
import { windowsLines, zeekLines } from './windows-zeek.js';

const { values: args } = parseArgs({ options: { rules: { type: 'string' }, top: { type: 'string', default: '15' } } });
const { lines, dir } = loadSamples();
const geo = geoIp();
const now = new Date().toISOString();
const pack = loadPack(args.rules ?? PACK_DIR);
const leadRules = pack.rules.map((rule) => ({ ...leadRuleOf(rule, pack.version, 'bench', now), enabled: true }));
// Alone, for the cost of each; as a set (the parts rules share tested once), for the whole pack's.
const compiled = leadRules.map((rule) => compileRule(rule));
const set = new CompiledRules((rule, err) => console.error(rule.name, err.message));
set.update(leadRules);
const whole = set.rulesFor('bench');
const idle = compileRule({ ...leadRuleOf(pack.rules[0]!, pack.version, 'bench', now), id: 'idle', enabled: true, conditions: { pattern: 'event.code:never-seen-value' } });

function events(sample: { source: string; raw: string }[]): EnrichedEvent[] {
  const batch = sample.map(({ source, raw }, i) => ({ value: { source, raw }, message: { topic: 'artifacts.raw', partition: 0, offset: String(i), key: null, value: Buffer.alloc(0), headers: {}, timestamp: Date.now() } }));
  return enrichBatch(parseBatch(batch, { defaultOrgId: 'bench', timezone: 'UTC', geo }).events).events;
}

/** CPU ns per event of matching these rules over the events, the best of a few rounds. */
function costNs(evs: EnrichedEvent[], rules: CompiledRule[]): number {
  const rulesFor = () => rules;
  let best = Infinity;
  for (let round = 0; round < 5; round++) {
    const t0 = process.cpuUsage();
    for (let rep = 0; rep < 3; rep++) findMatches(evs, rulesFor);
    const t = process.cpuUsage(t0);
    best = Math.min(best, ((t.user + t.system) * 1000) / (3 * evs.length));
  }
  return best;
}

for (const [name, sample] of [['sample mix', lines], ['Windows', windowsLines(dir)], ['Zeek', zeekLines(dir)]] as const) {
  const evs = events([...sample]);
  costNs(evs, whole); // warm-up
  const base = costNs(evs, [idle]);
  const wholeNs = costNs(evs, whole);
  const perRule = compiled.map((rule) => ({ rule, ns: costNs(evs, [rule]) - base, gate: rule.gate ? rule.gate.map((g) => ('text' in g ? JSON.stringify(g.text) : 'present' in g ? `${g.field}:*` : `${g.field}:${g.value}`)).join(' | ') : 'none' }));
  perRule.sort((a, b) => b.ns - a.ns);
  console.log(`\n${name}: ${evs.length} events; matching with no rule met ${base.toFixed(0)} ns/event, with the whole pack (${whole.length} rules) ${wholeNs.toFixed(0)} ns/event`);
  for (const { rule, ns, gate } of perRule.slice(0, Number(args.top))) console.log(`  ${ns.toFixed(0).padStart(6)} ns  ${rule.rule.name}  [gate: ${gate.slice(0, 90)}]`);
}
