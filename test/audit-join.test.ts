// Linux audit records through the running pipeline: each record its own
// event, and one joined event per multi-record serial, in one batch, across
// batches with a restart between them, and ended by the horizon when the
// kernel's printk form sends no EOE. Both topologies write the same rows.
import { afterEach, describe, expect, it } from 'vitest';
import { joinedEventId } from '../pipeline/analysis/audit-join.js';
import { startTestApi, type TestApi } from './helpers/api.js';
import { ALL_STAGES, FUSED_STAGES, drained, ingestLines, orgOf } from './helpers/pipeline.js';

const hex = (text: string) => Buffer.from(text, 'utf8').toString('hex').toUpperCase();

function execLines(serial: number): string[] {
  const head = (type: string) => `node=build3 type=${type} msg=audit(1764064800.125:${serial}):`;
  return [
    `${head('SYSCALL')} arch=c000003e syscall=59 success=yes exit=0 a0=5581 a1=5582 a2=5583 a3=0 items=2 ppid=4100 pid=4188 auid=1001 uid=1001 gid=1001 euid=0 suid=0 fsuid=0 egid=1001 sgid=1001 fsgid=1001 tty=pts2 ses=9 comm="passwd" exe="/usr/bin/passwd" key="privileged"`,
    `${head('EXECVE')} argc=2 a0="passwd" a1="bob"`,
    `${head('CWD')} cwd="/home/carol"`,
    `${head('PATH')} item=0 name="/usr/bin/passwd" inode=3301 dev=fd:00 mode=0104755 ouid=0 ogid=0 rdev=00:00 nametype=NORMAL`,
    `${head('PATH')} item=1 name="/lib64/ld-linux-x86-64.so.2" inode=2277 dev=fd:00 mode=0100755 ouid=0 ogid=0 rdev=00:00 nametype=NORMAL`,
    `${head('PROCTITLE')} proctitle=${hex('passwd\0bob')}`,
    `${head('EOE')} `,
  ];
}

interface EventRow {
  artifact_id: string;
  fields: Record<string, string[]>;
}

async function events(api: TestApi, orgId: string): Promise<EventRow[]> {
  const result = await api.runtime.store.query({
    query: "SELECT toString(artifact_id) AS artifact_id, fields FROM events WHERE org_id = {org:String} AND parser = 'linux-audit' ORDER BY timestamp, artifact_id",
    query_params: { org: orgId },
    format: 'JSONEachRow',
  });
  return result.json<EventRow>();
}

const joinedOf = (rows: EventRow[]) => rows.filter((r) => r.fields['event.dataset']?.[0] === 'auditd.event');

let api: TestApi | undefined;
afterEach(async () => {
  await api?.close();
  api = undefined;
});

describe.each([
  ['fused', FUSED_STAGES],
  ['staged', ALL_STAGES],
] as const)('audit records through the %s stages', (_topology, stages) => {
  it('writes every record as its event and one joined event per multi-record serial', async () => {
    api = await startTestApi({ stages: [...stages] });
    const token = api.token();
    const orgId = orgOf(token);
    const login = `node=build3 type=USER_LOGIN msg=audit(1764064801.000:5001): pid=900 uid=0 auid=1001 ses=9 msg='op=login id=1001 exe="/usr/sbin/sshd" hostname=198.51.100.23 addr=198.51.100.23 terminal=/dev/pts/2 res=success'`;
    const lines = [...execLines(5000), login];
    await ingestLines(api, token, lines, 'auditd');
    await drained(api);

    const rows = await events(api, orgId);
    expect(rows).toHaveLength(lines.length + 1);
    const joined = joinedOf(rows);
    expect(joined.map((r) => r.artifact_id)).toEqual([joinedEventId({ org_id: orgId, node: 'build3', epoch: '1764064800.125', serial: 5000 })]);
    expect(joined[0]!.fields).toMatchObject({
      'event.category': ['process'],
      'event.action': ['execve'],
      'event.outcome': ['success'],
      'process.args': ['passwd', 'bob'],
      'process.executable': ['/usr/bin/passwd'],
      'process.working_directory': ['/home/carol'],
      'file.path': ['/usr/bin/passwd'],
      'user.id': ['1001'],
      'user.effective.id': ['0'],
      'host.hostname': ['build3'],
      'auditd.log.records': ['7'],
      'auditd.log.complete': ['true'],
    });
    expect(joined[0]!.fields['auditd.log.artifact_ids']).toHaveLength(7);
  }, 120_000);
});

describe('audit records across batches', () => {
  it('joins a serial whose records came in two batches with a restart between them', async () => {
    api = await startTestApi({ stages: FUSED_STAGES });
    const token = api.token();
    const orgId = orgOf(token);
    const lines = execLines(6000);
    await ingestLines(api, token, lines.slice(0, 4), 'auditd');
    await drained(api);
    expect(joinedOf(await events(api, orgId))).toEqual([]);

    const dataDir = api.dataDir;
    await api.close();
    api = await startTestApi({ dataDir, stages: FUSED_STAGES });
    await ingestLines(api, token, lines.slice(4), 'auditd');
    await drained(api);

    const rows = await events(api, orgId);
    expect(rows).toHaveLength(lines.length + 1);
    const [joined] = joinedOf(rows);
    expect(joined!.fields).toMatchObject({ 'auditd.log.records': ['7'], 'auditd.log.complete': ['true'], 'process.title': ['passwd bob'], 'file.path': ['/usr/bin/passwd'] });
  }, 120_000);

  it('ends a serial without EOE (the printk form) once its host is past the horizon, marked incomplete', async () => {
    api = await startTestApi({ stages: FUSED_STAGES });
    const token = api.token();
    const orgId = orgOf(token);
    const kernel = (second: string, serial: number, type: number, body: string) => `Nov 25 10:00:0${second} build4 kernel: [  812.${serial}] audit: type=${type} audit(176406480${second}.100:${serial}): ${body}`;
    await ingestLines(
      api,
      token,
      [
        kernel('1', 311, 1400, 'apparmor="DENIED" operation="exec" profile="/usr/sbin/tcpdump" name="/tmp/payload" pid=7001 comm="tcpdump" requested_mask="x" denied_mask="x" fsuid=0 ouid=0'),
        kernel('1', 311, 1300, 'arch=c000003e syscall=59 success=no exit=-13 a0=1 a1=2 a2=3 a3=0 items=1 ppid=7000 pid=7001 auid=1001 uid=0 gid=0 euid=0 suid=0 fsuid=0 egid=0 sgid=0 fsgid=0 tty=pts2 ses=9 comm="tcpdump" exe="/usr/sbin/tcpdump" key=(null)'),
      ],
      'syslog',
    );
    await drained(api);
    expect(joinedOf(await events(api, orgId))).toEqual([]);
    // The host's next record, 3 s later in audit time.
    await ingestLines(api, token, [kernel('4', 312, 1327, `proctitle=${hex('sleep\x001')}`)], 'syslog');
    await drained(api);
    const joined = joinedOf(await events(api, orgId));
    expect(joined).toHaveLength(1);
    expect(joined[0]!.fields).toMatchObject({
      'event.category': ['intrusion_detection', 'process'],
      'event.type': ['denied', 'start'],
      'event.outcome': ['failure'],
      'event.action': ['avc'],
      'file.path': ['/tmp/payload'],
      'host.hostname': ['build4'],
      'auditd.log.records': ['2'],
      'auditd.log.complete': ['false'],
    });
  }, 120_000);
});
