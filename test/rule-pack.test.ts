// The shipped rule pack (rules/pack, docs/rules.md): its shape, every rule's
// test lines through the rule step (parse, GeoIP, enrich, rules with hot
// state), its Sigma form, and what it raises on the real samples in
// ../shared/data, each number counted again from the files' text.
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Conditions } from '../api/routes/lead-rules.js';
import type { LeadRule } from '../clickhouse/tables/lead-rules.js';
import { geoIp } from '../pipeline/geoip/geoip.js';
import { convertSigma } from '../query/sigma/convert.js';
import { NotExpressible, toSigma } from '../query/sigma/export.js';
import { leadRuleOf, shippedPack, type PackRule, type PackTestCase } from '../rules/pack.js';
import { samplesDir } from './helpers/samples.js';
import { RuleStep } from './helpers/rule-step.js';

const pack = shippedPack();
const NOW = new Date().toISOString();
const leadRule = (rule: PackRule): LeadRule => leadRuleOf(rule, pack.version, 'default', NOW);

/** Leads (distinct firings) a rule raises on a case's lines, with fresh rule state. */
async function leadsOn(rule: LeadRule, testCase: Pick<PackTestCase, 'source' | 'lines'>): Promise<number> {
  const step = await RuleStep.open();
  try {
    const { firings, unparsed } = await step.run([rule], testCase.source, testCase.lines);
    expect(unparsed, 'every test line parses').toBe(0);
    return new Set(firings.map((f) => f.id)).size;
  } finally {
    await step.close();
  }
}

describe('the rule pack', () => {
  it('has at least 40 rules over the families cairn parses, each described, tagged, tested, and accepted by the API', () => {
    expect(pack.version).toMatch(/^\d+\.\d+\.\d+$/);
    expect(pack.rules.length).toBeGreaterThanOrEqual(40);
    const families = new Set(pack.rules.map((r) => r.family));
    expect([...families].sort()).toEqual(['accounts-hosts', 'authentication', 'dns', 'ids-waf', 'network', 'threat-intel', 'web']);
    expect(new Set(pack.rules.map((r) => r.id)).size).toBe(pack.rules.length);
    for (const rule of pack.rules) {
      expect(rule.tags.some((t) => /^attack\.t\d{4}/.test(t)), `${rule.id} names an ATT&CK technique`).toBe(true);
      expect(rule.false_positives.length, rule.id).toBeGreaterThan(0);
      expect(rule.tests.fire.length, rule.id).toBeGreaterThan(0);
      expect(rule.tests.not_fire.length, rule.id).toBeGreaterThan(0);
      const accepted = Conditions.safeParse(rule.conditions);
      expect(accepted.success ? null : accepted.error.issues, `${rule.id}: the API takes its conditions as they are`).toBeNull();
    }
  });

  it('is described rule by rule in docs/rules.md', () => {
    const doc = fs.readFileSync(path.join(import.meta.dirname, '..', 'docs', 'rules.md'), 'utf8');
    for (const rule of pack.rules) expect(doc, rule.id).toContain(`**\`${rule.id}\`** · ${rule.name} · ${rule.severity}`);
    expect(doc).toContain(`${pack.rules.length} rules in 7 families`);
  });

  it('uses the correlations the issue asks for: ordered sequences, first-seen values, distinct counts, suppression', () => {
    const byId = new Map(pack.rules.map((r) => [r.id, r.conditions]));
    expect(byId.get('auth-failures-then-success')).toMatchObject({ ordered: true, group_by: 'source.ip' });
    expect(byId.get('ids-alert-then-login')).toMatchObject({ ordered: true, group_by: 'source.ip' });
    expect(byId.get('auth-new-country-for-account')).toMatchObject({ first_seen: { field: 'source.geo.country_iso_code', days: 30, baseline: true }, group_by: 'user.name' });
    expect(byId.get('priv-first-sudo-to-root')?.first_seen).toBeDefined();
    expect(byId.get('auth-password-spraying')).toMatchObject({ count_distinct: 'user.name', group_by: 'source.ip' });
    expect(byId.get('auth-distributed-guessing')).toMatchObject({ count_distinct: 'source.ip', group_by: 'user.name' });
    expect(byId.get('net-port-scan')).toMatchObject({ count_distinct: 'destination.port', suppress: '1h' });
  });
});

describe.each(pack.rules.map((r) => [r.id, r] as const))('pack rule %s', (_id, rule) => {
  const lead = leadRule(rule);
  it.each(rule.tests.fire.map((c, i) => [c.note ?? `case ${i + 1}`, c] as const))('fires: %s', async (_note, testCase) => {
    const leads = await leadsOn(lead, testCase);
    if (testCase.firings) expect(leads).toBe(testCase.firings);
    else expect(leads).toBeGreaterThan(0);
  });
  it.each(rule.tests.not_fire.map((c, i) => [c.note ?? `case ${i + 1}`, c] as const))('does not fire: %s', async (_note, testCase) => {
    expect(await leadsOn(lead, testCase)).toBe(0);
  });
});

describe('the pack as Sigma', () => {
  it('exports every rule but the first-seen ones, and the export imported back fires and stays quiet on the same test lines', async () => {
    const notExpressible: string[] = [];
    for (const rule of pack.rules) {
      const lead = leadRule(rule);
      let yaml: string;
      try {
        yaml = toSigma(lead);
      } catch (err) {
        if (!(err instanceof NotExpressible)) throw err;
        notExpressible.push(rule.id);
        continue;
      }
      expect(yaml).toContain('author: cairn rule pack');
      const results = convertSigma(yaml);
      const last = results[results.length - 1]!;
      expect(last.status, `${rule.id}: ${last.status === 'skipped' ? last.reason : ''}`).toBe('imported');
      if (last.status !== 'imported') continue;
      expect(last.draft.tags).toEqual(rule.tags);
      const again: LeadRule = { ...lead, ...last.draft, id: lead.id };
      for (const c of rule.tests.fire) expect(await leadsOn(again, c), `${rule.id} from Sigma fires: ${c.note ?? ''}`).toBeGreaterThan(0);
      for (const c of rule.tests.not_fire) expect(await leadsOn(again, c), `${rule.id} from Sigma stays quiet: ${c.note ?? ''}`).toBe(0);
    }
    expect(notExpressible.sort()).toEqual(pack.rules.filter((r) => r.conditions.first_seen).map((r) => r.id).sort());
  });
});

// ---------------------------------------------------------------------------
// The real samples: what every pack rule raises on each, and the same numbers
// counted from the text of the files, without the parser or the rule engine.

interface Sample {
  name: string;
  source: string;
  file: string;
}

const SAMPLES: Sample[] = [
  { name: 'openssh-loghub', source: 'auth', file: 'auth/openssh-loghub.log' },
  { name: 'secure-rhel7', source: 'auth', file: 'auth/secure-rhel7.log' },
  { name: 'auth-test', source: 'auth', file: 'auth/test.log' },
  { name: 'darwin-syslog', source: 'syslog', file: 'syslog/darwin-syslog-sample.log' },
  { name: 'suse-syslog', source: 'syslog', file: 'syslog/suse-syslog.log' },
  { name: 'eve-alerts', source: 'suricata', file: 'suricata/eve-alerts.log' },
  { name: 'eve-dns', source: 'suricata', file: 'suricata/eve-dns-4.1.4.log' },
  { name: 'eve-small', source: 'suricata', file: 'suricata/eve-small.log' },
  { name: 'asa', source: 'firewall', file: 'firewall/asa.log' },
  { name: 'iptables', source: 'firewall', file: 'firewall/iptables.log' },
  { name: 'zeek-dns', source: 'dns', file: 'dns/dns-json.log' },
  { name: 'apache', source: 'apache', file: 'elastic-integrations/apache/access/test-access-vhost.log' },
  { name: 'nginx', source: 'apache', file: 'elastic-integrations/nginx/access/test-test-with-host.log' },
];

const MONTHS = ['Jan', 'Feb', 'Mar', 'Apr', 'May', 'Jun', 'Jul', 'Aug', 'Sep', 'Oct', 'Nov', 'Dec'];
const MINUTE = 60_000;
const HOUR = 60 * MINUTE;

/** A syslog line's time in ms; the year does not matter to windows aligned to the epoch (every year starts at a whole hour). */
function syslogTime(line: string): number {
  const m = /^(\w{3}) +(\d+) (\d\d):(\d\d):(\d\d) /.exec(line)!;
  return Date.UTC(2025, MONTHS.indexOf(m[1]!), Number(m[2]), Number(m[3]), Number(m[4]), Number(m[5]));
}

interface Keyed {
  group: string;
  at: number;
  value?: string;
}

/**
 * Leads a tumbling-window rule raises: per group and window, `threshold`
 * events (or distinct values); then per group, a window whose first event
 * is less than `suppressMs` after the last one raised is suppressed.
 */
function windowLeads(events: Keyed[], windowMs: number, threshold: number, suppressMs: number, distinct = false): Map<string, number> {
  const windows = new Map<string, { group: string; first: number; count: Set<string> | number }>();
  for (const e of events) {
    const key = `${e.group}|${Math.floor(e.at / windowMs)}`;
    const w = windows.get(key) ?? { group: e.group, first: e.at, count: distinct ? new Set<string>() : 0 };
    w.first = Math.min(w.first, e.at);
    if (w.count instanceof Set) w.count.add(e.value!);
    else w.count++;
    windows.set(key, w);
  }
  const reached = [...windows.values()].filter((w) => (w.count instanceof Set ? w.count.size : w.count) >= threshold).sort((a, b) => a.first - b.first);
  const last = new Map<string, number>();
  const leads = new Map<string, number>();
  for (const w of reached) {
    const previous = last.get(w.group);
    if (previous !== undefined && w.first - previous < suppressMs) continue;
    last.set(w.group, w.first);
    leads.set(w.group, (leads.get(w.group) ?? 0) + 1);
  }
  return leads;
}

const total = (m: Map<string, number>) => [...m.values()].reduce((a, b) => a + b, 0);
const SSH_FAILURE = /sshd\[\d+\]: (?:message repeated \d+ times: \[ )?Failed \S+ for (?:invalid user )?(\S+) from (\S+) port /;
const SSH_INVALID = /sshd\[\d+\]: Invalid user (?:\S+ )?from (\S+)/;
const SSH_ACCEPTED = /sshd\[\d+\]: Accepted \S+ for (\S+) from (\S+) port /;
const SUDO_TO_ROOT = /^\w{3} +\d+ [\d:]+ (\S+) sudo: +(\S+) : TTY=.* USER=root ; COMMAND=/;

/** What the rules with firings on the samples should raise, counted from the text of a syslog-form authentication log. */
function expectedFromAuthLog(lines: string[]): Record<string, number> {
  const failures = lines.flatMap((l) => {
    const m = SSH_FAILURE.exec(l);
    return m ? [{ group: m[2]!, value: m[1]!, at: syslogTime(l) }] : [];
  });
  const invalid = lines.flatMap((l) => {
    const m = SSH_INVALID.exec(l);
    return m ? [{ group: m[1]!, at: syslogTime(l) }] : [];
  });
  const byUser = lines.flatMap((l) => {
    const m = SSH_FAILURE.exec(l);
    return m ? [{ group: m[1]!, value: m[2]!, at: syslogTime(l) }] : [];
  });
  // First-seen over the accepted logins from public addresses: one lead per new (account, country) and (account, AS),
  // but for each account's first one (its baseline: the rules have first_seen.baseline).
  const geo = geoIp();
  const countries = new Set<string>();
  const networks = new Set<string>();
  for (const l of lines) {
    const m = SSH_ACCEPTED.exec(l);
    const where = m ? geo.lookup(m[2]!) : null;
    if (where?.country_iso_code) countries.add(`${m![1]}|${where.country_iso_code}`);
    if (where?.as) networks.add(`${m![1]}|${where.as.number}`);
  }
  /** Of the (group, value) pairs, those after each group's first: a baseline first_seen rule's leads (the samples span under 30 days). */
  const beyondBaseline = (pairs: Set<string>) => pairs.size - new Set([...pairs].map((p) => p.split('|')[0])).size;
  const sudoers = new Set(lines.flatMap((l) => {
    const m = SUDO_TO_ROOT.exec(l);
    return m && m[2] !== 'root' && !l.includes(' : user NOT in sudoers') && !/ : \d+ incorrect password/.test(l) ? [`${m[1]}|${m[2]}`] : [];
  }));
  const refused = lines.flatMap((l) => {
    const m = /sudo: +(\S+) : (?:user NOT in sudoers|command not allowed|user NOT authorized on host)/.exec(l);
    return m ? [{ group: m[1]!, at: syslogTime(l) }] : [];
  });
  const usersWithShell = lines.filter((l) => /useradd\[\d+\]: new user: .*shell=(?!\S*\/(?:nologin|false))/.test(l));
  return {
    'auth-brute-force': total(windowLeads(failures, 10 * MINUTE, 10, HOUR)),
    'auth-password-spraying': total(windowLeads(failures, 15 * MINUTE, 5, HOUR, true)),
    'auth-distributed-guessing': total(windowLeads(byUser, HOUR, 10, 6 * HOUR, true)),
    'auth-unknown-accounts': total(windowLeads(invalid, 10 * MINUTE, 5, HOUR)),
    'auth-new-country-for-account': beyondBaseline(countries),
    'auth-new-asn-for-account': beyondBaseline(networks),
    'priv-first-sudo-to-root': beyondBaseline(sudoers),
    'priv-sudo-not-allowed': total(windowLeads(refused, 1, 1, HOUR)),
    'iam-user-created': usersWithShell.length,
  };
}

describe('the pack on the real samples', () => {
  const table = new Map<string, Map<string, number>>();

  beforeAll(async () => {
    const rules = pack.rules.map(leadRule);
    for (const sample of SAMPLES) {
      const lines = fs.readFileSync(path.join(samplesDir(), sample.file), 'utf8').split('\n').filter((l) => l.trim());
      const step = await RuleStep.open();
      try {
        const { firings } = await step.run(rules, sample.source, lines);
        const leads = new Map<string, Set<string>>();
        for (const f of firings) leads.set(f.rule.id, (leads.get(f.rule.id) ?? new Set()).add(f.id));
        table.set(sample.name, new Map(pack.rules.map((r) => [r.id, leads.get(leadRule(r).id)?.size ?? 0])));
      } finally {
        await step.close();
      }
    }
  }, 120_000);

  afterAll(() => {
    // The table of the closing note: every rule, its test cases, and its leads on each sample.
    const header = `| rule | severity | fire / not fire cases | ${SAMPLES.map((s) => s.name).join(' | ')} |`;
    const rows = pack.rules.map((r) => `| ${r.id} | ${r.severity} | ${r.tests.fire.length} / ${r.tests.not_fire.length} | ${SAMPLES.map((s) => table.get(s.name)?.get(r.id) ?? '-').join(' | ')} |`);
    console.log([header, `|${'---|'.repeat(SAMPLES.length + 3)}`, ...rows].join('\n'));
  });

  it.each(SAMPLES.filter((s) => s.source === 'auth').map((s) => [s.name, s] as const))('%s: the authentication rules raise what the text of the log says they should', (_name, sample) => {
    const lines = fs.readFileSync(path.join(samplesDir(), sample.file), 'utf8').split('\n').filter((l) => l.trim());
    const expected = expectedFromAuthLog(lines);
    const raised = table.get(sample.name)!;
    for (const [rule, count] of Object.entries(expected)) expect(raised.get(rule), `${sample.name}: ${rule}`).toBe(count);
    // Every other rule raised nothing on an authentication log.
    for (const [rule, count] of raised) if (!(rule in expected)) expect(count, `${sample.name}: ${rule}`).toBe(0);
  });

  it('openssh-loghub: every address with 10 failures in a 10-minute window is in a brute-force lead, and only those', () => {
    const lines = fs.readFileSync(path.join(samplesDir(), 'auth/openssh-loghub.log'), 'utf8').split('\n').filter((l) => l.trim());
    const failures = lines.flatMap((l) => {
      const m = SSH_FAILURE.exec(l);
      return m ? [{ group: m[2]!, at: syslogTime(l) }] : [];
    });
    const attackers = [...windowLeads(failures, 10 * MINUTE, 10, HOUR).keys()].sort();
    expect(attackers).toEqual(['103.99.0.122', '112.95.230.3', '183.62.140.253', '185.190.58.151', '187.141.143.180', '5.188.10.180']);
    expect(table.get('openssh-loghub')!.get('auth-brute-force')).toBeGreaterThanOrEqual(attackers.length);
  });

  it('the network, IDS, DNS and web samples raise nothing: none holds a scan, a high-severity alert, a tunnel or an attack the rules describe', () => {
    // eve-alerts holds ET POLICY (curl, apt) alerts of severities 2 and 3 from one internal host: policy, not attack.
    const alerts = fs.readFileSync(path.join(samplesDir(), 'suricata/eve-alerts.log'), 'utf8').split('\n').filter((l) => l.includes('"event_type":"alert"'));
    expect(alerts.length).toBeGreaterThan(0);
    for (const line of alerts) {
      const alert = (JSON.parse(line) as { alert: { signature: string; severity: number } }).alert;
      expect(alert.signature.startsWith('ET POLICY') || alert.severity > 2, alert.signature).toBe(true);
    }
    // The firewall samples: no source has 15 refused ports or hosts in the whole file, let alone in one window (the scan rules need 15 to 20).
    const refused = ['firewall/iptables.log', 'firewall/asa.log'].flatMap((f) => fs.readFileSync(path.join(samplesDir(), f), 'utf8').split('\n'));
    const targets = new Map<string, { ports: Set<string>; hosts: Set<string> }>();
    for (const line of refused) {
      const m =
        /(?:DROP|REJECT|BLOCK).* SRC=(\S+) DST=(\S+) .* DPT=(\d+)/.exec(line) ??
        /Deny \w+ src \S+?:([^/\s]+)\/\d+ dst \S+?:([^/\s]+)\/(\d+)/.exec(line) ??
        /[Dd]en(?:y|ied) .*from \S+?:?([\d.]+)\/\d+ to \S+?:?([\d.]+)\/(\d+)/.exec(line);
      if (!m) continue;
      const t = targets.get(m[1]!) ?? { ports: new Set(), hosts: new Set() };
      t.hosts.add(m[2]!);
      t.ports.add(m[3]!);
      targets.set(m[1]!, t);
    }
    expect(targets.size).toBeGreaterThan(0);
    for (const [source, t] of targets) expect(Math.max(t.ports.size, t.hosts.size), source).toBeLessThan(15);
    for (const name of ['eve-alerts', 'eve-dns', 'eve-small', 'asa', 'iptables', 'zeek-dns', 'apache', 'nginx', 'darwin-syslog', 'suse-syslog']) {
      for (const [rule, count] of table.get(name)!) expect(count, `${name}: ${rule}`).toBe(0);
    }
  });
});
