// Rule dispatch (pipeline/leads/dispatch.ts) only saves work: an event meets
// the rules filed under the values it has, and findMatches must give what
// trying every rule on every event gives. Checked on the values that could
// trip a value index (case, arrays, numbers, OR, NOT, wildcards) and on the
// real samples in ../shared/data run through the parser and the enricher.
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import type { LeadRule, LeadRuleConditions } from '../clickhouse/tables/lead-rules.js';
import type { DeliveredMessage } from '../pipeline/bus/types.js';
import { enrichBatch } from '../pipeline/enricher/consumer.js';
import { geoIp } from '../pipeline/geoip/geoip.js';
import { gateOf, RuleDispatch } from '../pipeline/leads/dispatch.js';
import { findMatches } from '../pipeline/leads/evaluate.js';
import { compileRule, type CompiledRule } from '../pipeline/leads/rules.js';
import { parseArtifacts } from '../pipeline/parser/parse-batch.js';
import { PreparedTarget } from '../query/match.js';
import { parseQuery } from '../query/parse.js';
import { leadRuleOf, shippedPack } from '../rules/pack.js';
import type { EnrichedEvent, FieldValue } from '../topics/index.js';
import { samplesDir } from './helpers/samples.js';

const NOW = new Date().toISOString();

function leadRule(id: string, conditions: LeadRuleConditions): LeadRule {
  return { id, org_id: 'default', name: id, description: '', enabled: true, conditions, severity: 'medium', tags: [], origin: null, created_at: NOW, updated_at: NOW };
}

/** Rules whose patterns reach every branch of gateOf and of the dispatch. */
const EDGE_RULES: LeadRule[] = Object.entries({
  'case-of-values': { pattern: 'event.category:AUTHENTICATION AND event.outcome:Failure' },
  'array-field': { pattern: 'event.type:(start OR connection OR denied)' },
  'or-across-fields': { pattern: 'process.name:sshd OR event.code:4625' },
  'not-only': { pattern: 'NOT event.outcome:success' },
  'not-of-gate': { pattern: 'event.category:network AND NOT destination.port:443' },
  'glob-value': { pattern: 'event.action:ssh* AND event.outcome:failure' },
  'glob-and-eq-or': { pattern: 'user.name:(root OR adm*)' },
  cidr: { pattern: 'source.ip:10.0.0.0/8 OR source.ip:192.168.0.0/16' },
  'quoted-value': { pattern: 'event.kind:"event" AND process.name:"sshd"' },
  'numeric-value': { pattern: 'event.category:network AND destination.port:(22 OR 53 OR 80)' },
  'exists-and-eq': { pattern: 'host.name:* AND event.category:(authentication OR iam)' },
  'text-only': { pattern: '"Failed password"' },
  'source-column': { pattern: 'source:auth AND event.outcome:failure' },
  'source-condition': { source: 'firewall', pattern: 'event.category:network' },
  'range-value': { pattern: 'event.category:web AND http.response.status_code:[400 TO 499]' },
  'nested-or-and': { pattern: '(event.category:authentication AND user.name:root) OR (event.category:process AND process.name:sudo)' },
  everything: { pattern: '*' },
  'window-count-distinct': { pattern: 'event.category:authentication AND event.outcome:failure', threshold: 3, window: '10m', group_by: 'source.ip', count_distinct: 'user.name' },
  sequence: { pattern: 'event.category:authentication', sequence: ['event.outcome:failure', 'event.outcome:success'], window: '10m', group_by: 'source.ip' },
  'first-seen': { pattern: 'event.category:authentication AND event.outcome:success', first_seen: { field: 'source.ip', days: 30 }, group_by: 'user.name' },
} satisfies Record<string, LeadRuleConditions>).map(([id, conditions]) => leadRule(id, conditions));

const NO_MESSAGE: DeliveredMessage = { topic: 'artifacts.raw', partition: 0, offset: '0', key: null, value: Buffer.alloc(0), headers: {}, timestamp: 0 };

/** Lines parsed (with GeoIP) and enriched as the pipeline does before the rules. */
function eventsOf(lines: { source: string; raw: string }[]): EnrichedEvent[] {
  const artifacts = lines.map(({ source, raw }, i) => ({
    artifact: { id: `a${i}`, org_id: 'default', source, raw, timestamp: NOW, metadata: {}, created_at: NOW },
    message: NO_MESSAGE,
  }));
  return enrichBatch(parseArtifacts(artifacts, { defaultOrgId: 'default', timezone: 'UTC', geo: geoIp() }).events).events;
}

/** Every line of the samples' .log files, each folder's name as its source. */
function sampleLines(): { source: string; raw: string }[] {
  const dir = samplesDir();
  const lines: { source: string; raw: string }[] = [];
  for (const source of ['auth', 'dns', 'firewall', 'suricata', 'syslog']) {
    for (const file of fs.readdirSync(path.join(dir, source)).filter((f) => f.endsWith('.log'))) {
      for (const raw of fs.readFileSync(path.join(dir, source, file), 'utf8').split('\n')) if (raw.trim()) lines.push({ source, raw });
    }
  }
  return lines;
}

type Found = [rule: string, artifact: string, keys: string[]];

/** What findMatches stands for: every rule tried on every event, in the list's order; a sequence's events that are none of its steps left out. */
function tryingEveryRule(events: EnrichedEvent[], rules: CompiledRule[]): Found[] {
  const found: Found[] = [];
  for (const event of events) {
    const target = new PreparedTarget({ id: event.artifact_id, source: event.source, raw: event.raw, fields: event.fields });
    for (const rule of rules) {
      const { source } = rule.rule.conditions;
      if (source && source !== event.source) continue;
      if (!rule.matches(target)) continue;
      const keys = rule.countKeys?.(target) ?? [];
      if (rule.steps !== undefined && keys.length === 0) continue;
      found.push([rule.rule.id, event.artifact_id, keys]);
    }
  }
  return found;
}

function dispatched(events: EnrichedEvent[], rules: CompiledRule[]): Found[] {
  return findMatches(events, () => rules).map(({ rule, event, keys }) => [rule.rule.id, event.artifact_id, keys]);
}

const compiledEdgeRules = EDGE_RULES.map((rule) => compileRule(rule));

const pack = shippedPack();
const compiledPack = pack.rules.map((rule) => compileRule(leadRuleOf(rule, pack.version, 'default', NOW)));

/** Every test line of the pack, fire and not_fire cases alike, with its case's source. */
function packTestLines(): { source: string; raw: string }[] {
  return pack.rules.flatMap((rule) => [...rule.tests.fire, ...rule.tests.not_fire].flatMap((c) => c.lines.map((raw) => ({ source: c.source, raw }))));
}

describe('a rule\'s gate', () => {
  const of = (pattern: string) => gateOf(parseQuery(pattern));

  it('is the values of an equality, lower-cased; every branch\'s of an OR; the narrowest part\'s of an AND', () => {
    expect(of('event.category:Authentication AND event.code:(4624 OR 4625 OR 4624)')).toEqual([
      { field: 'event.code', value: '4624' },
      { field: 'event.code', value: '4625' },
    ]);
    expect(of('(event.kind:event AND (process.name:"SSHD"))')).toEqual([{ field: 'process.name', value: 'sshd' }]);
    expect(of('event.category:authentication AND event.outcome:failure')).toEqual([{ field: 'event.category', value: 'authentication' }]);
    expect(of('process.name:sshd OR event.code:4625')).toEqual([
      { field: 'process.name', value: 'sshd' },
      { field: 'event.code', value: '4625' },
    ]);
    expect(of('(event.category:authentication AND user.name:root) OR (event.action:x AND NOT user.name:y)')).toEqual([
      { field: 'user.name', value: 'root' },
      { field: 'event.action', value: 'x' },
    ]);
  });

  it('is a field\'s presence for the other tests of a field, the text of a text term, the longest literal of a text glob', () => {
    expect(of('user.name:(root OR adm*)')).toEqual([
      { field: 'user.name', value: 'root' },
      { field: 'user.name', present: true },
    ]);
    for (const pattern of ['event.action:ssh*', 'source.ip:10.0.0.0/8', 'http.response.status_code:[400 TO 499]', 'host.name:*', 'process.command_line:/.*curl.*/']) {
      expect(of(pattern), pattern).toEqual([{ field: pattern.slice(0, pattern.indexOf(':')), present: true }]);
    }
    expect(of('"Failed Password"')).toEqual([{ text: 'failed password' }]);
    expect(of('*JNDI:*')).toEqual([{ text: 'jndi:' }]);
    expect(of('("Created symlink" AND /etc/systemd/) OR event.action:service-installed')).toEqual([
      { text: 'created symlink' },
      { field: 'event.action', value: 'service-installed' },
    ]);
    // A value beats a text, a text beats a broad field.
    expect(of('"Failed password" AND event.category:authentication')).toEqual([{ text: 'failed password' }]);
    expect(of('"Failed password" AND user.name:root')).toEqual([{ field: 'user.name', value: 'root' }]);
  });

  it('is none where a match need meet no term: NOT, the artifact columns, a short text glob, an OR with such a branch', () => {
    for (const pattern of ['NOT event.outcome:success', 'source:auth', 'id:abc', '*ab*', '(event.category:authentication AND user.name:root) OR NOT user.name:x', '*']) {
      expect(of(pattern), pattern).toBeNull();
    }
  });
});

describe('rule dispatch', () => {
  const candidatesOf = (rules: CompiledRule[], fields: Record<string, FieldValue>, raw = '') =>
    new RuleDispatch(rules).candidates(new PreparedTarget({ id: 'a', source: 's', raw, fields }), []).map((r) => r.rule.id);

  it('meets a rule whatever the case of the value, in any value of an array, as text of a number, once', () => {
    const rules = ['event.category:Authentication', 'event.type:(start OR connection)', 'destination.port:22', 'process.name:sshd OR event.code:4625'].map((pattern, i) =>
      compileRule(leadRule(`r${i}`, { pattern })),
    );
    expect(candidatesOf(rules, { 'event.category': 'AUTHENTICATION' })).toEqual(['r0']);
    expect(candidatesOf(rules, { 'event.category': ['network', 'Authentication'] })).toEqual(['r0']);
    expect(candidatesOf(rules, { 'event.type': ['connection', 'start'], 'destination.port': 22 })).toEqual(['r1', 'r2']);
    expect(candidatesOf(rules, { 'process.name': 'SSHD', 'event.code': 4625 })).toEqual(['r3']);
    expect(candidatesOf(rules, { 'event.code': [4624, 4625] })).toEqual(['r3']);
    expect(candidatesOf(rules, { 'event.category': 'process' })).toEqual([]);
  });

  it('meets a rule filed under a field whatever its value, and one filed under a text in any case of the line', () => {
    const rules = ['dns.question.name:*', '"Created symlink" OR event.action:service-installed', '*jndi* AND url.path:x', '*jndi* AND NOT url.path:x'].map((pattern, i) =>
      compileRule(leadRule(`r${i}`, { pattern })),
    );
    expect(candidatesOf(rules, { 'dns.question.name': 'a.example' })).toEqual(['r0']);
    expect(candidatesOf(rules, {}, 'systemctl[1]: CREATED SYMLINK /etc/x')).toEqual(['r1']);
    expect(candidatesOf(rules, { 'event.action': 'Service-Installed' })).toEqual(['r1']);
    expect(candidatesOf(rules, { 'url.path': 'x' }, 'GET /')).toEqual(['r2']);
    expect(candidatesOf(rules, { 'url.path': 'y' }, 'GET /${jndi:ldap://a}')).toEqual(['r3']);
    expect(candidatesOf(rules, { 'url.path': 'y' }, 'created a symlink')).toEqual([]);
  });

  it('keeps the rules of a list in its order, whichever values filed them', () => {
    const rules = ['user.name:root', 'event.outcome:failure', 'process.name:sshd', 'user.name:(root OR admin)', 'NOT event.outcome:success'].map((pattern, i) =>
      compileRule(leadRule(`r${i}`, { pattern })),
    );
    expect(candidatesOf(rules, { 'user.name': ['admin', 'root'], 'process.name': 'sshd', 'event.outcome': 'failure' })).toEqual(['r0', 'r1', 'r2', 'r3', 'r4']);
  });

  it('gives the firings of trying every rule on made-up events that test the edges of the index', () => {
    const fields: Record<string, FieldValue>[] = [
      { 'event.category': 'Authentication', 'event.outcome': 'FAILURE', 'user.name': 'Admin', 'source.ip': '10.1.2.3', 'host.name': 'h' },
      { 'event.category': ['network', 'authentication'], 'event.type': ['connection', 'denied'], 'destination.port': 443, 'event.kind': 'EVENT' },
      { 'event.category': 'network', 'destination.port': '53', 'source.ip': '192.168.1.1', 'process.name': 'SSHD' },
      { 'event.category': 'web', 'http.response.status_code': 404, 'event.action': 'SSH-login', 'event.outcome': 'failure' },
      { 'event.code': '4625', 'event.category': 'iam', 'host.name': 'dc' },
      { 'event.category': 'process', 'process.name': 'sudo', 'user.name': 'root' },
      {},
    ];
    const events = fields.map((f, i) => ({ artifact_id: `e${i}`, org_id: 'default', timestamp: NOW, source: i % 2 ? 'firewall' : 'auth', raw: i === 0 ? 'sshd: Failed password for admin' : 'x', fields: f }) as unknown as EnrichedEvent);
    const expected = tryingEveryRule(events, compiledEdgeRules);
    expect(expected.length).toBeGreaterThan(20);
    expect(dispatched(events, compiledEdgeRules)).toEqual(expected);
  });

  it('gives the firings of trying every rule on the real samples', () => {
    const events = eventsOf(sampleLines());
    expect(events.length).toBeGreaterThan(3000);
    const expected = tryingEveryRule(events, compiledEdgeRules);
    // Every rule but the rarest shapes meets events here, so the comparison is not empty.
    expect(new Set(expected.map(([rule]) => rule)).size).toBeGreaterThan(12);
    expect(dispatched(events, compiledEdgeRules)).toEqual(expected);
  });

  it('files most of the pack under a value, and gives the firings of trying every rule on its test lines and the real samples', () => {
    expect(compiledPack.filter((rule) => rule.gate).length).toBeGreaterThan((3 * compiledPack.length) / 4);
    for (const [name, lines] of [
      ['pack test lines', packTestLines()],
      ['samples', sampleLines()],
    ] as const) {
      const events = eventsOf(lines);
      const expected = tryingEveryRule(events, compiledPack);
      expect(new Set(expected.map(([rule]) => rule)).size, `${name}: rules that match`).toBeGreaterThan(name === 'samples' ? 5 : 40);
      expect(dispatched(events, compiledPack), name).toEqual(expected);
    }
  });
});
