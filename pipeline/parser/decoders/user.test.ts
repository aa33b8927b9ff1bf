// An organization's own decoders through the parser's real entry point:
// where they come in the order of readers (before the shipped services and
// code readers of their programs and sources, by content before the shipped
// catalogue for lines nobody claims), what the save-time checks refuse, and
// what a trial counts.
import { describe, expect, it } from 'vitest';
import type { StoredDecoder } from '../../../clickhouse/tables/user-decoders.js';
import { PATTERN_BUDGET_MS } from '../pattern-budget.js';
import { parseRaw } from '../registry.js';
import { ServiceSpec } from './catalogue.js';
import { DecoderIndex } from './decode.js';
import { checkUserService, tryUserService, UserDecoders, withCandidate } from './user.js';

const RECEIVED = Date.UTC(2026, 10, 23, 12);

function spec(document: Record<string, unknown>): ServiceSpec {
  return ServiceSpec.parse({ description: 'test service', tests: [{ line: 'x', expect: {} }], ...document });
}

function stored(orgId: string, service: ServiceSpec, at = '2026-01-01T00:00:00.000Z', id = `00000000-0000-4000-8000-${String(Math.abs(hash(service.service))).padStart(12, '0').slice(0, 12)}`): StoredDecoder {
  return { id, org_id: orgId, service: service.service, spec: service as unknown as Record<string, unknown>, created_at: at, updated_at: at };
}

function hash(text: string): number {
  let h = 0;
  for (const c of text) h = (h * 31 + c.charCodeAt(0)) | 0;
  return h;
}

function indexOf(...services: ServiceSpec[]): DecoderIndex {
  return new DecoderIndex(withCandidate(services.slice(0, -1).map((s) => stored('org', s)), { spec: services.at(-1)! }).after);
}

function parse(line: string, decoders?: DecoderIndex, source = 'syslog') {
  return parseRaw(line, { source, receivedAt: RECEIVED, decoders }).fields;
}

const VSFTPD_LINE = 'Jan 10 00:00:00 ftp vsftpd[42]: [alice] FAIL LOGIN: Client "203.0.113.9"';

describe('where user decoders come among the readers', () => {
  it('goes before the shipped catalogue for its program, and leaves the lines it does not match to it', () => {
    const shipped = parse(VSFTPD_LINE);
    expect(shipped).toMatchObject({ 'service.name': 'ftp', 'event.action': 'login-failed', 'user.name': 'alice' });
    const mine = indexOf(
      spec({
        service: 'acme-ftp',
        programs: ['vsftpd'],
        defaults: { 'event.category': ['authentication'], 'event.type': ['start'] },
        decoders: [{ name: 'denied', match: '^\\[{USER}\\] FAIL LOGIN: Client "{IP}"', fields: { 'event.action': 'ftp-denied', 'event.outcome': 'failure', 'labels.site': 'acme' } }],
      }),
    );
    expect(parse(VSFTPD_LINE, mine)).toMatchObject({ 'service.name': 'acme-ftp', 'event.action': 'ftp-denied', 'labels.site': 'acme', 'user.name': 'alice', 'source.ip': '203.0.113.9', 'cairn.decoder': 'user/acme-ftp' });
    const ok = 'Jan 10 00:00:00 ftp vsftpd[42]: [bob] OK LOGIN: Client "203.0.113.8"';
    expect(parse(ok, mine)).toEqual(parse(ok));
  });

  it('goes before the code readers of its program (sshd)', () => {
    const line = 'Jan 10 00:00:00 bastion sshd[7]: Failed password for root from 198.51.100.4 port 2222 ssh2';
    expect(parse(line)['event.action']).toBe('ssh_login');
    const mine = indexOf(spec({ service: 'my-sshd', programs: ['sshd'], decoders: [{ name: 'pw-failed', match: '^Failed password for {USER} from {IP} port {PORT}', fields: { 'event.action': 'pw-failed' } }] }));
    expect(parse(line, mine)).toMatchObject({ 'event.action': 'pw-failed', 'user.name': 'root', 'source.ip': '198.51.100.4', 'source.port': 2222, 'cairn.decoder': 'user/my-sshd' });
  });

  it('reads a plain line of its source, which nothing shipped reads', () => {
    const line = 'ACME-VPN session=77 user=carol ip=192.0.2.44 result=deny';
    const mine = indexOf(
      spec({
        service: 'acme-vpn',
        sources: ['acme-vpn'],
        decoders: [{ name: 'session', match: '^ACME-VPN session=(?<session>\\d+) user={USER} ip={IP} result=(?<result>allow|deny)$', fields: { 'event.action': 'vpn-$result', 'labels.session': '$session' } }],
      }),
    );
    expect(parse(line, undefined, 'acme-vpn')['cairn.decoder']).toBe('generic');
    expect(parse(line, mine, 'acme-vpn')).toMatchObject({ 'event.action': 'vpn-deny', 'labels.session': '77', 'user.name': 'carol', 'source.ip': '192.0.2.44', 'cairn.decoder': 'user/acme-vpn' });
  });

  it('finds a decoder by content for a line of a program and source nobody claims, before the shipped catalogue', () => {
    const line = 'Jan 10 00:00:00 gw acmed[1]: WIDGET-ALERT rule=9 from 192.0.2.50';
    const mine = indexOf(spec({ service: 'widgets', decoders: [{ name: 'alert', match: 'WIDGET-ALERT rule=(?<rule>\\d+) from {IP}', contains: 'WIDGET-ALERT', fields: { 'event.action': 'widget-alert', 'rule.id': '$rule' } }] }));
    expect(parse(line, mine)).toMatchObject({ 'event.action': 'widget-alert', 'rule.id': '9', 'source.ip': '192.0.2.50', 'process.name': 'acmed' });
    // A derived literal shorter than 8 characters names too little to read another program's lines by.
    const loose = indexOf(spec({ service: 'loose', decoders: [{ name: 'alert', match: 'RULE=(?<rule>\\d+)', fields: { 'event.action': 'loose' } }] }));
    expect(parse('Jan 10 00:00:00 gw acmed[1]: RULE=4', loose)['event.action']).toBeUndefined();
  });

  it('changes nothing on a line none of its decoders matches', () => {
    // Naming a program does not make it "known": other lines of it keep the shipped loose readings (here a
    // failed login read by the generic shapes), and other services may still read them by content.
    const mine = indexOf(
      spec({ service: 'claimer', programs: ['acmed'], decoders: [{ name: 'only-this', match: '^exactly this$' }] }),
      spec({ service: 'widgets', decoders: [{ name: 'alert', match: 'WIDGET-ALERT from {IP}', contains: 'WIDGET-ALERT' }] }),
    );
    for (const line of ['Jan 10 00:00:00 gw acmed[1]: login failed for bob from 192.0.2.7', 'Jan 10 00:00:00 gw acmed[31]: started', 'acmed: started']) {
      expect(parse(line, mine), line).toEqual(parse(line));
    }
    expect(parse('Jan 10 00:00:00 gw acmed[1]: WIDGET-ALERT from 192.0.2.51', mine)['cairn.decoder']).toBe('user/widgets');
  });

  it('tries an organization’s services oldest first', () => {
    const first = spec({ service: 'first', programs: ['acmed'], decoders: [{ name: 'a', match: '^hello (?<who>\\w+)', fields: { 'event.action': 'first-$who' } }] });
    const second = spec({ service: 'second', programs: ['acmed'], decoders: [{ name: 'b', match: '^hello', fields: { 'event.action': 'second' } }] });
    expect(parse('Jan 10 00:00:00 gw acmed[1]: hello world', indexOf(first, second))['event.action']).toBe('first-world');
    expect(parse('Jan 10 00:00:00 gw acmed[1]: hello world', indexOf(second, first))['event.action']).toBe('second');
  });
});

describe('UserDecoders', () => {
  const vpn = spec({ service: 'vpn', programs: ['vpnd'], decoders: [{ name: 'x', match: '^login {USER}$' }] });

  it('keeps each organization to its own decoders and rebuilds only what changed', () => {
    const decoders = new UserDecoders(() => {
      throw new Error('nothing here fails to compile');
    });
    const a = stored('org-a', vpn);
    decoders.update([a]);
    const held = decoders.forOrg('org-a');
    expect(held).toBeDefined();
    expect(decoders.forOrg('org-b')).toBeUndefined();
    expect(parse('Jan 10 00:00:00 gw vpnd[1]: login dave', held)['user.name']).toBe('dave');
    decoders.update([a, stored('org-b', vpn)]);
    expect(decoders.forOrg('org-a')).toBe(held);
    decoders.update([{ ...a, updated_at: '2026-02-01T00:00:00.000Z' }]);
    expect(decoders.forOrg('org-a')).not.toBe(held);
    expect(decoders.forOrg('org-b')).toBeUndefined();
  });

  it('leaves out and reports a stored decoder that no longer compiles', () => {
    const failed: string[] = [];
    const decoders = new UserDecoders((d) => failed.push(d.service));
    decoders.update([stored('org-a', vpn), { ...stored('org-a', vpn, undefined, '00000000-0000-4000-8000-000000000001'), service: 'old', spec: { ...vpn, service: 'old', decoders: [{ name: 'y', match: '{GONE}' }] } }]);
    expect(failed).toEqual(['old']);
    expect(decoders.forOrg('org-a')).toBeDefined();
  });
});

describe('checks when a user decoder is saved', () => {
  const options = { stored: [], receivedAt: RECEIVED };
  const line = 'Jan 10 00:00:00 gw acmed[1]: denied user=erin from 192.0.2.60';
  const good = {
    service: 'acme',
    programs: ['acmed'],
    defaults: { 'event.category': ['authentication'], 'event.type': ['info'] },
    decoders: [{ name: 'denied', match: '^denied user={USER} from {IP}$', fields: { 'event.action': 'denied', 'event.outcome': 'failure' } }],
    tests: [{ line, expect: { 'user.name': 'erin', 'source.ip': '192.0.2.60', 'event.outcome': 'failure', 'cairn.decoder': 'user/acme' } }],
  };

  it('passes a service whose test lines give what they expect', () => {
    expect(checkUserService(spec(good), options)).toEqual([]);
  });

  it('names each test line that does not give what it expects, and what it gave', () => {
    const problems = checkUserService(spec({ ...good, tests: [...good.tests, { line, expect: { 'user.name': 'frank', 'event.reason': null, 'source.ip': '192.0.2.60' } }] }), options);
    expect(problems).toEqual([{ test: 2, message: 'test line 2: user.name is "erin", expected "frank"' }]);
  });

  it('refuses categorisation values ECS does not allow', () => {
    const problems = checkUserService(spec({ ...good, defaults: { 'event.category': ['logins'], 'event.type': ['info'] } }), options);
    expect(problems[0]!.message).toMatch(/test line 1: event.category=logins is not a value ECS allows/);
  });

  it('refuses a pattern that does not compile, an unknown macro and a field using a capture the pattern lacks, naming the decoder', () => {
    expect(checkUserService(spec({ ...good, decoders: [{ name: 'broken', match: '^denied (' }] }), options)).toEqual([{ decoder: 'broken', message: expect.stringMatching(/^decoder broken: Invalid regular expression/) }]);
    expect(checkUserService(spec({ ...good, decoders: [{ name: 'macro', match: '{NOPE}' }] }), options)[0]).toMatchObject({ decoder: 'macro', message: expect.stringMatching(/unknown macro \{NOPE\}/) });
    expect(checkUserService(spec({ ...good, decoders: [{ name: 'ref', match: 'x', fields: { 'user.name': '$who' } }] }), options)[0]).toMatchObject({ decoder: 'ref', message: expect.stringMatching(/uses \$who/) });
  });

  it('refuses fields under cairn.* and names that are no field names', () => {
    expect(checkUserService(spec({ ...good, defaults: { 'cairn.decoder': 'mine' } }), options)[0]!.message).toMatch(/cairn.decoder is cairn's own field/);
    expect(checkUserService(spec({ ...good, decoders: [{ ...good.decoders[0], fields: { 'user name': '$user', _private: 'x' } }] }), options)).toEqual([
      { decoder: 'denied', message: 'decoder denied: "user name" is not a field name (letters, digits, ".", "_", "@" and "-", starting with a letter or "@")' },
      { decoder: 'denied', message: 'decoder denied: "_private" is not a field name (letters, digits, ".", "_", "@" and "-", starting with a letter or "@")' },
    ]);
  });

  it('refuses a pattern that backtracks catastrophically, within a bounded time', () => {
    // Nested quantifiers over the same characters: every way of splitting a long run is tried once its end does not fit.
    for (const match of ['^denied (\\w+\\s?)+$', '(a+)+$', '^(\\d+)*x']) {
      const started = performance.now();
      const problems = checkUserService(spec({ ...good, decoders: [{ name: 'slow', match }] }), options);
      const took = performance.now() - started;
      expect(problems, match).toHaveLength(1);
      expect(problems[0]).toMatchObject({ decoder: 'slow', message: expect.stringMatching(new RegExp(`^decoder slow: its pattern (took \\d+|did not finish in \\d+) ms .* the budget is ${PATTERN_BUDGET_MS} ms a line`)) });
      // The probe stops at the first run over budget, and a run that never ends is abandoned.
      expect(took, match).toBeLessThan(10 * PATTERN_BUDGET_MS);
    }
  });

  it('tests the lines among the organization’s other decoders, with the candidate in place of the one it replaces', () => {
    const other = spec({ service: 'other', programs: ['acmed'], decoders: [{ name: 'any', match: '^denied', fields: { 'event.action': 'other' } }] });
    const older = stored('org', other, '2025-01-01T00:00:00.000Z');
    // The older service takes the line first: the new one's expectations fail.
    expect(checkUserService(spec(good), { ...options, stored: [older] })[0]!.message).toMatch(/cairn.decoder is "user\/other", expected "user\/acme"/);
    // Replacing that very decoder, the candidate takes its place.
    expect(checkUserService(spec(good), { ...options, stored: [older], id: older.id })).toEqual([]);
  });
});

describe('trying a user decoder', () => {
  it('counts the lines it claims and changes, the fields it sets, with samples before and after', async () => {
    const mine = spec({
      service: 'acme',
      programs: ['acmed'],
      decoders: [{ name: 'denied', match: '^denied user={USER} from {IP}$', fields: { 'event.action': 'denied', 'event.outcome': 'failure' } }],
    });
    const lines = ['denied user=a from 192.0.2.1', 'denied user=b from 192.0.2.2', 'something else'].map((message, i) => ({
      raw: `Jan 10 00:00:0${i} gw acmed[1]: ${message}`,
      source: 'syslog',
      receivedAt: RECEIVED,
      artifactId: `artifact-${i}`,
    }));
    const counts = await tryUserService(lines, { service: 'acme', before: undefined, after: indexOf(mine), samples: 1 });
    expect(counts).toMatchObject({ lines_read: 3, lines_claimed: 2, lines_changed: 2 });
    // The generic reading already finds the outcome in "denied": only what changes is counted.
    expect(counts.fields_set).toMatchObject({ 'event.action': 2, 'user.name': 2, 'cairn.decoder': 2, 'service.name': 2 });
    expect(counts.fields_set['event.outcome']).toBeUndefined();
    expect(counts.samples).toHaveLength(1);
    expect(counts.samples[0]).toMatchObject({ artifact_id: 'artifact-0', claimed: true, after: { fields: { 'user.name': 'a', 'event.action': 'denied' } } });
    expect('fields' in counts.samples[0]!.before && counts.samples[0]!.before.fields['event.action']).not.toBe('denied');
  });
});
