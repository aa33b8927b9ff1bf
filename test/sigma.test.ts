// Sigma rules end to end: imported through the API, they fire on ingested
// lines (every Linux syslog, web server and Zeek rule of the sample, on lines
// written to match and to miss it), carry their ATT&CK tags onto the
// observations, export back to Sigma, and can be tried on stored events
// before they are enabled.
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { startTestApi, type TestApi } from './helpers/api.js';
import { eventually } from './helpers/buses.js';
import { FUSED_STAGES, drained, get, orgOf } from './helpers/pipeline.js';
import { sigmaSampleDir } from './helpers/samples.js';

const SIGMA_DIR = sigmaSampleDir();
const LINES = parse(fs.readFileSync(path.join(import.meta.dirname, 'fixtures', 'sigma-lines.yml'), 'utf8')) as { rule: string; source: string; hit: string[]; miss: string[] }[];

interface ImportOutcome {
  title: string;
  sigma_id: string | null;
  status: 'imported' | 'skipped';
  action: 'created' | 'updated' | null;
  rule_id: string | null;
  reason: string | null;
}
interface ObservationOut {
  id: string;
  rule_id: string | null;
  artifact_ids: string[];
  tags: string[];
  severity: string;
}

let api: TestApi;
let token = '';

function sampleRules(): string[] {
  return fs
    .readdirSync(SIGMA_DIR, { recursive: true, encoding: 'utf8' })
    .filter((f) => f.endsWith('.yml'))
    .sort();
}

async function importSigma(rules: string, enabled?: boolean): Promise<{ imported: number; skipped: number; results: ImportOutcome[] }> {
  const res = await api.request('POST', '/api/v1/lead-rules/import', { token, body: { rules, ...(enabled === undefined ? {} : { enabled }) } });
  expect(res.status, res.text).toBe(200);
  return res.body.data as { imported: number; skipped: number; results: ImportOutcome[] };
}

/** Posts lines as artifacts of `source`; their ids, in order. */
async function ingest(source: string, lines: string[]): Promise<string[]> {
  const res = await api.request('POST', '/api/v1/artifacts', { token, body: { artifacts: lines.map((raw) => ({ source, raw })) } });
  expect(res.status, res.text).toBe(202);
  return (res.body.data as { ids: string[] }).ids;
}

async function observations(): Promise<ObservationOut[]> {
  return (await get<{ observations: ObservationOut[] }>(api, token, '/api/v1/observations?limit=1000')).observations;
}

function ruleIdOf(outcomes: ImportOutcome[], sigmaId: string): string {
  const outcome = outcomes.find((o) => o.sigma_id === sigmaId);
  expect(outcome?.status, sigmaId).toBe('imported');
  return outcome!.rule_id!;
}

describe('Sigma rules through the API, embedded', () => {
  let outcomes: ImportOutcome[] = [];
  const ids = new Map<string, { hit: string[]; miss: string[] }>();

  beforeAll(async () => {
    api = await startTestApi({ stages: FUSED_STAGES });
    token = api.token();
    const all = sampleRules().map((f) => fs.readFileSync(path.join(SIGMA_DIR, f), 'utf8'));
    outcomes = (await importSigma(all.join('\n---\n'))).results;
    for (const entry of LINES) {
      const [hit, miss] = [await ingest(entry.source, entry.hit), await ingest(entry.source, entry.miss)];
      ids.set(entry.rule, { hit, miss });
    }
    await drained(api);
  }, 180_000);
  afterAll(async () => {
    await api?.close();
  });

  it('answers per rule: imported, or skipped with the reason; 95% of the rules whose log source cairn maps import', () => {
    expect(outcomes).toHaveLength(sampleRules().length);
    for (const o of outcomes) {
      if (o.status === 'imported') expect(o).toMatchObject({ action: 'created', reason: null, rule_id: expect.any(String) });
      else expect(o.reason, o.title).toMatch(/\S/);
    }
    const unmapped = outcomes.filter((o) => o.reason?.includes('is not mapped')).length;
    const imported = outcomes.filter((o) => o.status === 'imported').length;
    expect(imported / (outcomes.length - unmapped)).toBeGreaterThanOrEqual(0.95);
  });

  it('fires every Linux syslog, web server and Zeek rule on the lines written to match it, and on none written to miss it', async () => {
    const sigmaIds = new Map(LINES.map((e) => [e.rule, parse(fs.readFileSync(path.join(SIGMA_DIR, e.rule), 'utf8')).id as string]));
    const found = await eventually(async () => {
      const all = await observations();
      const byRule = new Map<string, Set<string>>();
      for (const o of all) if (o.rule_id) byRule.set(o.rule_id, new Set([...(byRule.get(o.rule_id) ?? []), ...o.artifact_ids]));
      for (const entry of LINES) {
        const fired = byRule.get(ruleIdOf(outcomes, sigmaIds.get(entry.rule)!)) ?? new Set();
        for (const id of ids.get(entry.rule)!.hit) expect(fired.has(id), `${entry.rule} on its hit`).toBe(true);
      }
      return byRule;
    }, 60_000);
    for (const entry of LINES) {
      const fired = found.get(ruleIdOf(outcomes, sigmaIds.get(entry.rule)!)) ?? new Set();
      for (const [i, id] of ids.get(entry.rule)!.miss.entries()) expect(fired.has(id), `${entry.rule} on miss ${i}: ${entry.miss[i]}`).toBe(false);
    }
    expect(LINES.length).toBeGreaterThanOrEqual(40);
  });

  it('carries the ATT&CK tags of the sshd and web access rules onto their observations', async () => {
    const all = await observations();
    for (const [rule, tags] of [
      ['rules/linux/builtin/sshd/lnx_sshd_susp_ssh.yml', ['attack.initial-access', 'attack.t1190']],
      ['rules/web/webserver_generic/web_susp_useragents.yml', ['attack.initial-access', 'attack.t1190']],
    ] as const) {
      const sigmaId = parse(fs.readFileSync(path.join(SIGMA_DIR, rule), 'utf8')).id as string;
      const fired = all.filter((o) => o.rule_id === ruleIdOf(outcomes, sigmaId));
      expect(fired.length, rule).toBeGreaterThan(0);
      for (const o of fired) expect(o.tags).toEqual(expect.arrayContaining([...tags]));
    }
  });

  it('exports a rule as Sigma that imports again onto the same rule', async () => {
    const sigmaId = parse(fs.readFileSync(path.join(SIGMA_DIR, 'rules/linux/builtin/sshd/lnx_sshd_susp_ssh.yml'), 'utf8')).id as string;
    const ruleId = ruleIdOf(outcomes, sigmaId);
    const res = await api.request('GET', `/api/v1/lead-rules/${ruleId}?format=sigma`, { token });
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/^application\/yaml/);
    const doc = parse(res.text) as Record<string, unknown>;
    expect(doc).toMatchObject({ id: sigmaId, logsource: { product: 'linux', service: 'sshd' }, level: 'medium' });
    expect(doc.author).toEqual(expect.any(String));
    const again = await importSigma(res.text);
    expect(again.results[0]).toMatchObject({ status: 'imported', action: 'updated', rule_id: ruleId });
    const stored = await get<{ conditions: unknown; tags: string[]; origin: { id: string } }>(api, token, `/api/v1/lead-rules/${ruleId}`);
    expect(stored.origin.id).toBe(sigmaId);
    expect((await api.request('GET', `/api/v1/lead-rules/${ruleId}?format=xml`, { token })).status).toBe(400);
  });

  it('answers field-only searches from the parsed events: the same artifacts, newest first, an exact total', async () => {
    const f5 = LINES.find((e) => e.rule.endsWith('web_f5_tm_utility_bash_api_request.yml'))!;
    const byAddress = await get<{ artifacts: { raw: string }[]; total: number; total_exact: boolean }>(api, token, `/api/v1/artifacts?query=${encodeURIComponent('source.ip:198.51.100.20 AND http.request.method:(POST OR GET)')}`);
    expect(byAddress).toMatchObject({ total: 2, total_exact: true });
    expect(new Set(byAddress.artifacts.map((a) => a.raw))).toEqual(new Set([...f5.hit, ...f5.miss]));
    const network = await get<{ total: number }>(api, token, `/api/v1/artifacts?exact_total=true&query=${encodeURIComponent('source.ip:198.51.100.0/24 AND http.response.status_code>=400')}`);
    const expected = LINES.filter((e) => e.source === 'nginx')
      .flatMap((e) => [...e.hit, ...e.miss])
      .filter((l) => l.startsWith('198.51.100.') && Number(/" (\d{3}) /.exec(l)?.[1]) >= 400).length;
    expect(network.total).toBe(expected);
    // A field test beside a word: the word bounds the field subquery, the answer is the same.
    const sqli = LINES.find((e) => e.rule.endsWith('web_sql_injection_in_access_logs.yml'))!;
    const mixed = await get<{ artifacts: { raw: string }[] }>(api, token, `/api/v1/artifacts?query=${encodeURIComponent('http.response.status_code:404 AND item')}`);
    expect(mixed.artifacts.map((a) => a.raw)).toEqual([sqli.miss[0]]);
    expect((await api.request('GET', '/api/v1/artifacts?exact_total=yes', { token })).status).toBe(400);
  });

  it('answers 400 with the reason to a body that is not Sigma, and 403 without signals:manage', async () => {
    const skipped = await importSigma('title: [unclosed');
    expect(skipped.results[0]).toMatchObject({ status: 'skipped', reason: expect.stringMatching(/not valid YAML/) });
    expect((await api.request('POST', '/api/v1/lead-rules/import', { token, body: { rules: '' } })).status).toBe(400);
    expect((await api.request('POST', '/api/v1/lead-rules/import', { token: api.token(['signals:read'], orgOf(token)), body: { rules: 'title: x' } })).status).toBe(403);
  });

  it('tries a rule on stored events: matching events, leads, samples, the same as a direct count', async () => {
    const pattern = 'process.name:(sshd OR sshd-session) AND ("Corrupted MAC" OR "incorrect signature")';
    const readOnly = api.token(['signals:read'], orgOf(token));
    const res = await api.request('POST', '/api/v1/lead-rules/test', { token: readOnly, body: { conditions: { pattern } } });
    expect(res.status, res.text).toBe(200);
    const trial = res.body.data as { events: number; leads: number; samples: { artifact_id: string; raw: string }[]; took_ms: number };
    const direct = await get<{ total: number }>(api, token, `/api/v1/artifacts?query=${encodeURIComponent(pattern)}`);
    expect(trial.events).toBe(direct.total);
    expect(trial.events).toBe(2);
    expect(trial.leads).toBe(2);
    expect(new Set(trial.samples.map((s) => s.artifact_id))).toEqual(new Set(ids.get('rules/linux/builtin/sshd/lnx_sshd_susp_ssh.yml')!.hit));

    // A threshold over every web event per client address: each address sent 1 or 2 lines, one window.
    const grouped = await api.request('POST', '/api/v1/lead-rules/test', {
      token,
      body: { conditions: { pattern: 'event.category:web', threshold: 2, window: '1h', group_by: 'source.ip' }, samples: 3 },
    });
    expect(grouped.status, grouped.text).toBe(200);
    const webLines = LINES.filter((e) => e.source === 'nginx' && e.rule.includes('webserver_generic'));
    const perAddress = new Map<string, number>();
    for (const line of webLines.flatMap((e) => [...e.hit, ...e.miss])) {
      const ip = line.split(' ')[0]!;
      perAddress.set(ip, (perAddress.get(ip) ?? 0) + 1);
    }
    expect(grouped.body.data).toMatchObject({ leads: [...perAddress.values()].filter((n) => n >= 2).length });
    expect((grouped.body.data as { samples: unknown[] }).samples).toHaveLength(3);

    // A stored rule, changed before it is tried; unknown ids and bad bodies are 4xx.
    const sigmaId = parse(fs.readFileSync(path.join(SIGMA_DIR, 'rules/web/webserver_generic/web_susp_useragents.yml'), 'utf8')).id as string;
    const changed = await api.request('POST', '/api/v1/lead-rules/test', { token, body: { id: ruleIdOf(outcomes, sigmaId), conditions: { threshold: 5, window: '1h' } } });
    expect(changed.body.data).toMatchObject({ events: 1, leads: 0, conditions: { threshold: 5 } });
    expect((await api.request('POST', '/api/v1/lead-rules/test', { token, body: { id: '0190aaaa-0000-7000-8000-000000000009' } })).status).toBe(404);
    expect((await api.request('POST', '/api/v1/lead-rules/test', { token, body: {} })).status).toBe(400);
    const syntax = await api.request('POST', '/api/v1/lead-rules/test', { token, body: { conditions: { pattern: 'a AND (b' } } });
    expect(syntax.status).toBe(400);
    expect(syntax.body.message).toMatch(/pattern/);
  });
});

describe('a Sigma value_count correlation, embedded', () => {
  let api2: TestApi;
  beforeAll(async () => {
    api2 = await startTestApi({ stages: FUSED_STAGES });
  }, 60_000);
  afterAll(async () => {
    await api2?.close();
  });

  it('becomes a lead, and an incident, when distinct users from one address cross the threshold', async () => {
    const t = api2.token();
    const rules = `title: Failed SSH password
id: 5c6a1b7e-7f0e-4a34-9c1b-0d7d1b9c0a01
name: failed_ssh_password
logsource:
  product: linux
  service: sshd
detection:
  selection:
    - 'Failed password for'
  condition: selection
---
title: Password spraying over SSH
id: 5c6a1b7e-7f0e-4a34-9c1b-0d7d1b9c0a02
author: cairn tests
tags:
  - attack.credential-access
  - attack.t1110.003
correlation:
  type: value_count
  rules:
    - failed_ssh_password
  group-by:
    - source.ip
  timespan: 10m
  condition:
    gte: 3
    field: User
level: high
`;
    const res = await api2.request('POST', '/api/v1/lead-rules/import', { token: t, body: { rules } });
    expect(res.status, res.text).toBe(200);
    const results = (res.body.data as { results: ImportOutcome[] }).results;
    expect(results.map((r) => r.status)).toEqual(['skipped', 'imported']);
    const ruleId = results[1]!.rule_id!;
    const line = (second: number, user: string, ip: string) => `Nov 23 11:00:${String(second).padStart(2, '0')} bastion sshd[${7000 + second}]: Failed password for invalid user ${user} from ${ip} port ${40000 + second} ssh2`;
    // 203.0.113.50 tries three users (a lead); 203.0.113.51 tries one user three times (no lead).
    const lines = [line(1, 'admin', '203.0.113.50'), line(2, 'oracle', '203.0.113.50'), line(3, 'admin', '203.0.113.51'), line(4, 'admin', '203.0.113.51'), line(5, 'admin', '203.0.113.51'), line(6, 'test', '203.0.113.50')];
    expect((await api2.request('POST', '/api/v1/artifacts', { token: t, body: { artifacts: lines.map((raw) => ({ source: 'auth', raw })) } })).status).toBe(202);
    await drained(api2);
    const fired = await eventually(async () => {
      const { observations: all } = await get<{ observations: ObservationOut[] }>(api2, t, '/api/v1/observations?limit=100');
      const mine = all.filter((o) => o.rule_id === ruleId);
      expect(mine).toHaveLength(1);
      return mine[0]!;
    });
    expect(fired).toMatchObject({ severity: 'high', tags: ['attack.credential-access', 'attack.t1110.003'] });
    expect(fired.artifact_ids).toHaveLength(3);
    const incidents = await eventually(async () => {
      const { incidents: list } = await get<{ incidents: { id: string }[] }>(api2, t, '/api/v1/incidents');
      expect(list.length).toBeGreaterThan(0);
      return list;
    });
    const linked = await Promise.all(incidents.map((i) => get<{ observations: { id: string }[] }>(api2, t, `/api/v1/incidents/${i.id}`)));
    expect(linked.some((i) => i.observations.some((o) => o.id === fired.id))).toBe(true);
  });
});

describe('a Sigma Sysmon process_creation rule and a Zeek http rule, embedded', () => {
  let api3: TestApi;
  beforeAll(async () => {
    api3 = await startTestApi({ stages: FUSED_STAGES });
  }, 60_000);
  afterAll(async () => {
    await api3?.close();
  });

  // Written for this test: Office starting an encoded PowerShell command.
  const sysmonRule = `title: Encoded PowerShell started by an Office application
id: 6f0c3c1e-2b8e-4f5a-9d61-0c2a1b3c4d5e
status: experimental
author: cairn tests
tags:
  - attack.execution
  - attack.t1059.001
logsource:
  product: windows
  category: process_creation
detection:
  selection_parent:
    ParentImage|endswith:
      - '\\WINWORD.EXE'
      - '\\EXCEL.EXE'
  selection_child:
    Image|endswith: '\\powershell.exe'
    CommandLine|contains:
      - ' -enc '
      - ' -EncodedCommand '
  condition: all of selection_*
level: high
`;
  const NS = "xmlns='http://schemas.microsoft.com/win/2004/08/events/event'";
  const POWERSHELL = 'C:\\Windows\\System32\\WindowsPowerShell\\v1.0\\powershell.exe';
  const WORD = 'C:\\Program Files\\Microsoft Office\\root\\Office16\\WINWORD.EXE';
  const data = (fields: Record<string, string>) => Object.entries(fields).map(([k, v]) => `<Data Name='${k}'>${v}</Data>`).join('');
  const sysmonXml = (id: number, second: number, fields: Record<string, string>) =>
    `<Event ${NS}><System><Provider Name='Microsoft-Windows-Sysmon' Guid='{5770385f-c22a-43e0-bf4c-06f5698ffbd9}'/><EventID>${id}</EventID><TimeCreated SystemTime='2026-11-23T11:10:${second}.000Z'/><Channel>Microsoft-Windows-Sysmon/Operational</Channel><Computer>ws042.corp.example</Computer><Security UserID='S-1-5-18'/></System><EventData>${data({ UtcTime: `2026-11-23 11:10:${second}.000`, ProcessGuid: `{9f32b55f-2f1c-65e6-a402-0000000000${second}}`, ProcessId: `61${second}`, User: 'CORP\\alice', ...fields })}</EventData></Event>`;
  const processCreated = (second: number, parent: string, commandLine: string) => sysmonXml(1, second, { Image: POWERSHELL, CommandLine: commandLine, ParentImage: parent, ParentCommandLine: `"${parent}"` });

  const windowsHits = [
    { source: 'sysmon', raw: processCreated(10, WORD, 'powershell.exe -nop -w hidden -enc SQBFAFgAIAAoAE4A') },
    {
      source: 'winlogbeat',
      raw: JSON.stringify({
        '@timestamp': '2026-11-23T11:10:11.000Z',
        winlog: {
          channel: 'Microsoft-Windows-Sysmon/Operational',
          event_id: '1',
          provider_name: 'Microsoft-Windows-Sysmon',
          computer_name: 'ws043.corp.example',
          event_data: { UtcTime: '2026-11-23 11:10:11.000', ProcessId: '7001', Image: POWERSHELL, CommandLine: 'powershell -EncodedCommand SQBFAFgA', ParentImage: 'C:\\Program Files\\Microsoft Office\\root\\Office16\\EXCEL.EXE', User: 'CORP\\bob' },
        },
      }),
    },
    {
      // The same process creation as Security writes it (4688): Sigma's process_creation covers both.
      source: 'windows',
      raw: `<Event ${NS}><System><Provider Name='Microsoft-Windows-Security-Auditing' Guid='{54849625-5478-4994-a5ba-3e3b0328c30d}'/><EventID>4688</EventID><Keywords>0x8020000000000000</Keywords><TimeCreated SystemTime='2026-11-23T11:10:12.000Z'/><Channel>Security</Channel><Computer>ws044.corp.example</Computer><Security/></System><EventData>${data({ SubjectUserSid: 'S-1-5-21-1-2-3-1013', SubjectUserName: 'carol', SubjectDomainName: 'CORP', NewProcessId: '0x1a2c', NewProcessName: POWERSHELL, ProcessId: '0x22f0', CommandLine: 'powershell.exe -enc SQBFAFgA', ParentProcessName: WORD })}</EventData></Event>`,
    },
  ];
  const windowsMisses = [
    { source: 'sysmon', raw: processCreated(13, 'C:\\Windows\\explorer.exe', 'powershell.exe -nop -enc SQBFAFgA') },
    { source: 'sysmon', raw: processCreated(14, WORD, 'powershell.exe -File C:\\Users\\alice\\report.ps1') },
    // Its command line matches, but an engine start (Windows PowerShell 400) is no process creation.
    {
      source: 'windows',
      raw: `<Event ${NS}><System><Provider Name='PowerShell'/><EventID>400</EventID><TimeCreated SystemTime='2026-11-23T11:10:15.000Z'/><Channel>Windows PowerShell</Channel><Computer>ws042.corp.example</Computer><Security/></System><EventData><Data>Available</Data><Data>None</Data><Data>\tHostName=ConsoleHost&#xA;\tHostApplication=powershell.exe -nop -w hidden -enc SQBFAFgA&#xA;</Data></EventData></Event>`,
    },
    { source: 'sysmon', raw: sysmonXml(3, 16, { Image: POWERSHELL, Protocol: 'tcp', Initiated: 'true', SourceIp: '192.0.2.42', SourcePort: '51544', DestinationIp: '198.51.100.7', DestinationPort: '443' }) },
  ];
  const zeekHttp = (second: number, method: string, userAgent: string, server: string) =>
    JSON.stringify({ ts: Date.UTC(2026, 10, 23, 11, 11, second) / 1000, uid: `CwD${second}aV1`, 'id.orig_h': '10.1.1.20', 'id.orig_p': 52000 + second, 'id.resp_h': server, 'id.resp_p': 80, trans_depth: 1, method, host: server, uri: '/share/loot.zip', version: '1.1', user_agent: userAgent, request_body_len: 73802, status_code: 201 });
  const WEBDAV = 'Microsoft-WebDAV-MiniRedir/10.0.19045';
  const zeekHits = [zeekHttp(1, 'PUT', WEBDAV, '203.0.113.10')];
  const zeekMisses = [zeekHttp(2, 'PUT', WEBDAV, '10.1.1.30'), zeekHttp(3, 'GET', WEBDAV, '203.0.113.10'), zeekHttp(4, 'PUT', 'curl/8.4.0', '203.0.113.10')];

  it('fire on the events written to match them (Sysmon, Winlogbeat, Security 4688; Zeek JSON) and on no near miss', async () => {
    const t = api3.token();
    const zeekRule = fs.readFileSync(path.join(SIGMA_DIR, 'rules/network/zeek/zeek_http_webdav_put_request.yml'), 'utf8');
    const res = await api3.request('POST', '/api/v1/lead-rules/import', { token: t, body: { rules: `${sysmonRule}---\n${zeekRule}` } });
    expect(res.status, res.text).toBe(200);
    const [sysmonOutcome, zeekOutcome] = (res.body.data as { results: ImportOutcome[] }).results;
    expect(sysmonOutcome).toMatchObject({ status: 'imported' });
    expect(zeekOutcome).toMatchObject({ status: 'imported' });

    const ingestAll = async (items: { source: string; raw: string }[]) => {
      const posted = await api3.request('POST', '/api/v1/artifacts', { token: t, body: { artifacts: items } });
      expect(posted.status, posted.text).toBe(202);
      return (posted.body.data as { ids: string[] }).ids;
    };
    const ids = {
      windowsHits: await ingestAll(windowsHits),
      windowsMisses: await ingestAll(windowsMisses),
      zeekHits: await ingestAll(zeekHits.map((raw) => ({ source: 'zeek', raw }))),
      zeekMisses: await ingestAll(zeekMisses.map((raw) => ({ source: 'zeek', raw }))),
    };
    await drained(api3);
    const firedBy = await eventually(async () => {
      const { observations: all } = await get<{ observations: ObservationOut[] }>(api3, t, '/api/v1/observations?limit=100');
      const byRule = (ruleId: string) => new Set(all.filter((o) => o.rule_id === ruleId).flatMap((o) => o.artifact_ids));
      const sysmonFired = byRule(sysmonOutcome!.rule_id!);
      const zeekFired = byRule(zeekOutcome!.rule_id!);
      for (const id of ids.windowsHits) expect(sysmonFired.has(id), `process_creation rule on ${id}`).toBe(true);
      for (const id of ids.zeekHits) expect(zeekFired.has(id), `zeek http rule on ${id}`).toBe(true);
      return { sysmonFired, zeekFired, all };
    }, 60_000);
    for (const [i, id] of ids.windowsMisses.entries()) expect(firedBy.sysmonFired.has(id), `process_creation rule on miss ${i}`).toBe(false);
    for (const [i, id] of ids.zeekMisses.entries()) expect(firedBy.zeekFired.has(id), `zeek http rule on miss ${i}`).toBe(false);
    expect([...ids.windowsMisses, ...ids.zeekMisses].some((id) => firedBy.zeekFired.has(id) || firedBy.sysmonFired.has(id))).toBe(false);
    const tagged = firedBy.all.filter((o) => o.rule_id === sysmonOutcome!.rule_id);
    for (const o of tagged) expect(o).toMatchObject({ severity: 'high', tags: ['attack.execution', 'attack.t1059.001'] });
  });
});
