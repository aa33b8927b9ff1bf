// The user's own blind spots (GET /v1/parser/coverage, `cairn coverage`): a
// mixed set of lines goes through the real pipeline, and every number of the
// report is checked against counts the test makes itself from what it sent.
import { spawn } from 'node:child_process';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { coverageReport, type CoverageCounts, type CoverageReport } from '../reports/coverage.js';
import { startTestApi, type TestApi } from './helpers/api.js';
import { eventually } from './helpers/buses.js';
import { drained, FUSED_STAGES, orgOf } from './helpers/pipeline.js';

const BIN = path.join(import.meta.dirname, '..', 'bin', 'cairn.mjs');

/** A kind of line the test sends, with what cairn makes of it as the test knows it. */
interface Group {
  name: string;
  source: string;
  lines: string[];
  tagKind: string;
  tag: string;
  parsed: boolean;
  categorised: boolean;
  /** The raw line holds an IPv4 or IPv6 address. */
  address: boolean;
  sourceIp: boolean;
  generic: boolean;
  /** The masked shape, for lines without event.category. */
  shape?: string;
}

const times = (n: number, line: (i: number) => string) => Array.from({ length: n }, (_, i) => line(i));
const syslog = (program: string, message: string, i: number) => `Mar  3 10:${String(10 + i).padStart(2, '0')}:0${i % 10} web1 ${program}[${100 + i}]: ${message}`;
const FORTIGATE = (i: number) =>
  `date=2026-03-03 time=10:00:0${i} devname="fw1" devid="FGT60E" logid="0000000013" type="traffic" subtype="forward" level="notice" srcip=10.0.0.${i + 1} srcport=${40000 + i} dstip=8.8.8.8 dstport=53 action="deny" proto=17`;
const ONE_OFF_WORDS = ['alpha', 'bravo', 'charlie', 'delta', 'echo', 'foxtrot', 'golf', 'hotel', 'india', 'juliett', 'kilo', 'lima', 'mike', 'november', 'oscar'];

const base = { parsed: true, categorised: false, address: false, sourceIp: false, generic: false };
const GROUPS: Group[] = [
  { ...base, name: 'sshd over IPv4', source: 'syslog', tagKind: 'program', tag: 'sshd', categorised: true, address: true, sourceIp: true, lines: times(10, (i) => syslog('sshd', `Failed password for user${i} from 203.0.113.${i + 1} port ${5000 + i} ssh2`, i)) },
  { ...base, name: 'sshd over IPv6', source: 'syslog', tagKind: 'program', tag: 'sshd', categorised: true, address: true, sourceIp: true, lines: times(2, (i) => syslog('sshd', `Failed password for root from 2001:db8::${i + 1} port 22 ssh2`, i)) },
  { ...base, name: 'FortiGate traffic', source: 'firewall', tagKind: 'device', tag: 'fortinet/fortigate', categorised: true, address: true, sourceIp: true, lines: times(6, FORTIGATE) },
  // Read by the generic layer with a category, an address but no peer; and with a MAC address and times only (no IP address).
  { ...base, name: 'generic sessions', source: 'syslog', tagKind: 'program', tag: 'myapp', categorised: true, address: true, generic: true, lines: times(3, (i) => syslog('myapp', `session opened for 198.51.100.${i + 1}`, i)) },
  { ...base, name: 'generic links', source: 'syslog', tagKind: 'program', tag: 'netmon', categorised: true, generic: true, lines: times(2, (i) => syslog('netmon', `link up on port ${i + 1} mac 00:1a:2b:3c:4d:5${i}`, i)) },
  // Unrecognised (no event.category), three shapes repeated, and one read generically (a peer, no category).
  { ...base, name: 'generic peers', source: 'syslog', tagKind: 'program', tag: 'myapp', address: true, sourceIp: true, generic: true, shape: 'peer <ip> went away', lines: times(5, (i) => syslog('myapp', `peer ${i < 3 ? `198.51.100.${20 + i}` : `2001:db8::${20 + i}`} went away`, i)) },
  { ...base, name: 'backups', source: 'syslog', tagKind: 'program', tag: 'myapp', address: true, shape: 'backup to <ip> done in <num> ms', lines: times(7, (i) => syslog('myapp', `backup to 10.2.3.${i + 1} done in ${30 + i * 7} ms`, i)) },
  { ...base, name: 'invoices', source: 'syslog', tagKind: 'program', tag: 'billing', shape: 'invoice <num> sent to <str> total <num>', lines: times(6, (i) => syslog('billing', `invoice ${4400 + i} sent to "Customer ${i}" total ${i + 10}.50`, i)) },
  { ...base, name: 'JSON cache', source: 'app', tagKind: 'parser', tag: 'json', shape: 'cache <str> holds <num> entries', lines: times(4, (i) => JSON.stringify({ level: 'info', msg: `cache "t${i}" holds ${i * 100 + 1} entries` })) },
  // Failures: nothing reads these lines.
  { ...base, name: 'idle workers', source: 'app', tagKind: 'unparsed', tag: '', parsed: false, shape: 'worker <num> idle', lines: times(4, (i) => `worker ${i + 1} idle`) },
  { ...base, name: 'garbage with addresses', source: 'app', tagKind: 'unparsed', tag: '', parsed: false, address: true, shape: 'garbage line <num> with <ip> inside', lines: times(3, (i) => `garbage line ${i} with 192.0.2.${i + 1} inside`) },
  // A MAC address is no IP address; hex strings and quoted text are masked.
  { ...base, name: 'leases', source: 'app', tagKind: 'unparsed', tag: '', parsed: false, shape: 'lease <hex> for <str> mac <mac> id <hex>', lines: times(2, (i) => `lease 0x1f3${i} for 'host-${i}' mac aa:bb:cc:dd:ee:0${i} id 3f2a9c1e77b${i}`) },
  ...ONE_OFF_WORDS.map((word) => ({ ...base, name: `one-off ${word}`, source: 'app', tagKind: 'unparsed', tag: '', parsed: false, shape: `${word} event`, lines: [`${word} event`] })),
];
/** Three days old: outside the default range of 24 hours. */
const OLD: Group = { ...base, name: 'old failures', source: 'old', tagKind: 'unparsed', tag: '', parsed: false, shape: 'old line <num>', lines: times(3, (i) => `old line ${i}`) };

const ratio = (a: number, b: number) => (b > 0 ? a / b : null);

/** The report's counts for a set of groups, counted from what the test sent. */
function expectedCounts(groups: Group[]): Omit<CoverageCounts, 'categorised_share' | 'source_ip_share' | 'generic_share'> {
  const count = (f: (g: Group) => boolean) => groups.filter(f).reduce((n, g) => n + g.lines.length, 0);
  return {
    lines: count(() => true),
    events: count((g) => g.parsed),
    failures: count((g) => !g.parsed),
    categorised: count((g) => g.categorised),
    address_lines: count((g) => g.address),
    address_lines_with_source_ip: count((g) => g.address && g.sourceIp),
    generic: count((g) => g.generic),
  };
}

function expectCounts(actual: CoverageCounts, groups: Group[], what: string): void {
  const expected = expectedCounts(groups);
  expect(actual, what).toMatchObject(expected);
  const shares: [number | null, number | null][] = [
    [actual.categorised_share, ratio(expected.categorised, expected.events)],
    [actual.source_ip_share, ratio(expected.address_lines_with_source_ip, expected.address_lines)],
    [actual.generic_share, ratio(expected.generic, expected.events)],
  ];
  for (const [share, wanted] of shares) {
    if (wanted === null) expect(share, what).toBeNull();
    else expect(share, what).toBeCloseTo(wanted, 4);
  }
}

/** Every number of a report over `groups`: totals, per source, per tag, and the shapes. */
function expectReport(report: CoverageReport, groups: Group[], ids: Map<Group, string[]>): void {
  expectCounts(report.totals, groups, 'totals');
  const sources = [...new Set(groups.map((g) => g.source))];
  expect(report.sources.map((s) => s.source).sort()).toEqual(sources.sort());
  for (const source of report.sources) {
    const ofSource = groups.filter((g) => g.source === source.source);
    expectCounts(source, ofSource, source.source);
    const tags = [...new Set(ofSource.map((g) => `${g.tagKind} ${g.tag}`))];
    expect(source.tags.map((t) => `${t.tag_kind} ${t.tag}`).sort(), source.source).toEqual(tags.sort());
    for (const tag of source.tags) expectCounts(tag, ofSource.filter((g) => g.tagKind === tag.tag_kind && g.tag === tag.tag), `${source.source} ${tag.tag_kind} ${tag.tag}`);
  }
  // The most frequent shapes first; among equals, in the order of their text.
  const shapes = groups
    .filter((g) => !g.categorised)
    .map((g) => ({ shape: g.shape!, count: g.lines.length, source: g.source, tag_kind: g.tagKind, tag: g.tag, group: g }))
    .sort((a, b) => b.count - a.count || (a.shape < b.shape ? -1 : 1))
    .slice(0, 20);
  expect(report.unrecognised_shapes.map(({ example_artifact_id: _, ...s }) => s)).toEqual(shapes.map(({ group: _, ...s }) => s));
  for (const [i, shape] of report.unrecognised_shapes.entries()) expect(ids.get(shapes[i]!.group), shape.shape).toContain(shape.example_artifact_id);
}

function cairn(args: string[]): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [BIN, ...args], { env: { ...process.env, CAIRN_LOG_LEVEL: 'warn' } });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    child.on('exit', (code) => resolve({ code, stdout, stderr }));
  });
}

describe('the coverage report on a mixed set, through the pipeline', () => {
  let api: TestApi;
  let token = '';
  const ids = new Map<Group, string[]>();
  const HOUR = 3_600_000;
  const sentAt = Date.now();
  /** Line i of the set is stamped an hour ago plus i seconds, in the order sent: the newest lines are the last ones. */
  const stamp = (i: number) => new Date(sentAt - HOUR + i * 1000).toISOString();
  const everything = [...GROUPS, OLD];

  const report = async (query = '', as = token) => {
    const res = await api.request('GET', `/api/v1/parser/coverage${query}`, { token: as });
    expect(res.status, res.text).toBe(200);
    return res.body.data as CoverageReport;
  };

  beforeAll(async () => {
    api = await startTestApi({ stages: FUSED_STAGES });
    token = api.token();
    const artifacts: { source: string; raw: string; timestamp: string }[] = [];
    for (const group of GROUPS) for (const raw of group.lines) artifacts.push({ source: group.source, raw, timestamp: stamp(artifacts.length) });
    for (const [i, raw] of OLD.lines.entries()) artifacts.push({ source: OLD.source, raw, timestamp: new Date(sentAt - 72 * HOUR + i * 1000).toISOString() });
    const res = await api.request('POST', '/api/v1/artifacts', { token, body: { artifacts } });
    expect(res.status, res.text).toBe(202);
    const accepted = (res.body.data as { ids: string[] }).ids;
    let next = 0;
    for (const group of everything) ids.set(group, accepted.slice(next, (next += group.lines.length)));
    await drained(api);
    // The store stage writes artifacts apart from the analysis stage's events: wait for both.
    await eventually(async () => expect((await report(`?start=${new Date(sentAt - 96 * HOUR).toISOString()}`)).totals).toMatchObject({ lines: expectedCounts(everything).lines, events: expectedCounts(everything).events }), 30_000, 200);
  }, 120_000);
  afterAll(async () => {
    await api?.close();
  });

  it('counts every line of the last 24 hours by source and tag, and lists the unrecognised shapes', async () => {
    const data = await report();
    expect(Date.parse(data.end) - Date.parse(data.start)).toBe(24 * HOUR);
    expect(data.scanned).toMatchObject({ artifacts: expectedCounts(GROUPS).lines, truncated: false, start: data.start });
    expectReport(data, GROUPS, ids);
    // The numbers the set was built for, as a reader would state them.
    expect(data.totals).toMatchObject({ lines: 69, events: 45, failures: 24, categorised: 23, address_lines: 36, address_lines_with_source_ip: 23, generic: 10 });
    expect(data.unrecognised_shapes).toHaveLength(20);
    expect(data.unrecognised_shapes.slice(0, 7).map((s) => [s.count, s.shape])).toEqual([
      [7, 'backup to <ip> done in <num> ms'],
      [6, 'invoice <num> sent to <str> total <num>'],
      [5, 'peer <ip> went away'],
      [4, 'cache <str> holds <num> entries'],
      [4, 'worker <num> idle'],
      [3, 'garbage line <num> with <ip> inside'],
      [2, 'lease <hex> for <str> mac <mac> id <hex>'],
    ]);
  });

  it('takes start and end: a wider range holds the old lines too, a range before everything holds none', async () => {
    const wide = await report(`?start=${new Date(sentAt - 96 * HOUR).toISOString()}&end=${new Date(sentAt + HOUR).toISOString()}`);
    expectReport(wide, everything, ids);
    const old = await report(`?start=${new Date(sentAt - 96 * HOUR).toISOString()}&end=${new Date(sentAt - 24 * HOUR).toISOString()}`);
    expectReport(old, [OLD], ids);
    const before = await report(`?start=${new Date(sentAt - 200 * HOUR).toISOString()}&end=${new Date(sentAt - 100 * HOUR).toISOString()}`);
    expect(before).toMatchObject({ scanned: { artifacts: 0, truncated: false }, sources: [], unrecognised_shapes: [] });
    expect(before.totals).toMatchObject({ lines: 0, categorised_share: null, source_ip_share: null, generic_share: null });
  });

  it('reads only the newest artifacts of a range past its limit, and says so', async () => {
    // The set was sent in order with growing timestamps: the newest 30 are the last 30 lines of GROUPS.
    const range = { start: new Date(sentAt - 2 * HOUR).toISOString(), end: new Date(sentAt).toISOString() };
    const limited = await coverageReport(api.runtime.store, orgOf(token), range, { maxArtifacts: 30 });
    const sent = GROUPS.flatMap((g) => g.lines.map((raw) => ({ g, raw })));
    const newest = sent.slice(-30);
    // Each group cut to its lines among the newest (its last ones), with their ids.
    const cutIds = new Map<Group, string[]>();
    const groups = [...new Set(newest.map((l) => l.g))].map((g) => {
      const lines = newest.filter((l) => l.g === g).map((l) => l.raw);
      const cutGroup = { ...g, lines };
      cutIds.set(cutGroup, ids.get(g)!.slice(-lines.length));
      return cutGroup;
    });
    expect(groups.map((g) => `${g.name} ${g.lines.length}`)).toEqual(['invoices 2', 'JSON cache 4', 'idle workers 4', 'garbage with addresses 3', 'leases 2', ...ONE_OFF_WORDS.map((w) => `one-off ${w} 1`)]);
    expect(limited.scanned).toEqual({ artifacts: 30, limit: 30, truncated: true, start: stamp(sent.length - 31) });
    expectReport(limited, groups, cutIds);
  });

  it('answers 400 for a bad range and 403 without signals:read, and keeps organizations apart', async () => {
    const cases: [string, RegExp][] = [
      [`?start=${new Date(sentAt).toISOString()}&end=${new Date(sentAt - HOUR).toISOString()}`, /start must be before end/],
      [`?start=${new Date(sentAt - 40 * 24 * HOUR).toISOString()}&end=${new Date(sentAt).toISOString()}`, /the range is at most 31 days/],
      ['?start=yesterday', /start: must be an ISO 8601 timestamp/],
    ];
    for (const [query, message] of cases) {
      const res = await api.request('GET', `/api/v1/parser/coverage${query}`, { token });
      expect(res.status, query).toBe(400);
      expect(res.body.message, query).toMatch(message);
      expect(res.body.error?.code).toBe('validation_error');
    }
    expect((await api.request('GET', '/api/v1/parser/coverage', { token: api.token(['signals:write'], orgOf(token)) })).status).toBe(403);
    expect((await report('', api.token(['signals:read']))).totals.lines).toBe(0);
  });

  it('is described in the OpenAPI document with its permission', async () => {
    const doc = (await api.request('GET', '/api/v1/openapi.json')).body as unknown as { paths: Record<string, { get?: { 'x-permission'?: string; description?: string } }> };
    const route = doc.paths['/api/v1/parser/coverage']?.get;
    expect(route?.['x-permission']).toBe('signals:read');
    expect(route?.description).toMatch(/At most 1,000,000 artifacts are read/);
  });

  describe('cairn coverage', () => {
    const range = () => ['--start', new Date(sentAt - 96 * HOUR).toISOString(), '--end', new Date(sentAt + HOUR).toISOString()];
    const target = () => ['--url', api.url, '--token', api.token(['signals:read'], orgOf(token))];

    it('prints the report as JSON, the numbers the API gives', async () => {
      const run = await cairn(['coverage', ...range(), ...target(), '--json']);
      expect(run.code, run.stderr).toBe(0);
      const printed = JSON.parse(run.stdout) as CoverageReport;
      expectReport(printed, everything, ids);
      const [start, end] = [range()[1]!, range()[3]!];
      expect(printed).toEqual(await report(`?start=${start}&end=${end}`));
    }, 60_000);

    it('prints readable tables: a row per source and tag, then the shapes', async () => {
      const run = await cairn(['coverage', ...range(), ...target()]);
      expect(run.code, run.stderr).toBe(0);
      const lines = run.stdout.split('\n');
      expect(lines[0]).toMatch(/^Parser coverage from .* to .*: 72 line\(s\)$/);
      const row = (label: string) => lines.find((l) => new RegExp(label).test(l))?.split(/\s{2,}/);
      // SOURCE, TAG, LINES, FAILED, CATEGORISED, SOURCE.IP/ADDRESS LINES, GENERIC
      expect(row('^syslog\\s+\\(all\\)')).toEqual(['syslog', '(all)', '35', '0', '17 48.6%', '17/27 63.0%', '10 28.6%']);
      expect(row('^\\s+program sshd')).toEqual(['', 'program sshd', '12', '0', '12 100.0%', '12/12 100.0%', '0 0.0%']);
      expect(row('^\\s+device fortinet/fortigate')).toEqual(['', 'device fortinet/fortigate', '6', '0', '6 100.0%', '6/6 100.0%', '0 0.0%']);
      expect(row('^\\s+unparsed')?.slice(1)).toEqual(['unparsed (parse failures)', '24', '24', '0 -', '0/3 0.0%', '0 -']);
      expect(row('^total')).toEqual(['total', '72', '27', '23 51.1%', '23/36 63.9%', '10 22.2%']);
      const shape = lines.find((l) => l.includes('backup to <ip> done in <num> ms'))!.trim().split(/\s{2,}/);
      expect(shape.slice(0, 4)).toEqual(['7', 'syslog', 'program myapp', 'backup to <ip> done in <num> ms']);
      expect(ids.get(GROUPS.find((g) => g.name === 'backups')!)).toContain(shape[4]);
    }, 60_000);

    it('says what is wrong with a bad range, exiting 1', async () => {
      const run = await cairn(['coverage', '--start', '2026-01-02T00:00:00Z', '--end', '2026-01-01T00:00:00Z', ...target()]);
      expect(run.code).toBe(1);
      expect(run.stderr).toMatch(/^cairn: GET \/api\/v1\/parser\/coverage answered 400: invalid query: start: start must be before end/);
    }, 60_000);
  });
});
