// The analysis step works a task in slices (analyse.ts SLICE); what it returns
// must not depend on where the slices fall.
import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { readRows } from '../../clickhouse/row-binary.js';
import type { DeliveredMessage } from '../bus/index.js';
import { analyse, type AnalysisResult } from './analyse.js';
import { packMessages } from './packed-messages.js';

const now = Date.parse('2026-11-25T10:00:00Z');

function message(offset: number, value: string): DeliveredMessage {
  return { topic: 'artifacts.raw', partition: 0, offset: String(offset), key: null, value: Buffer.from(value), headers: {}, timestamp: now };
}

function sshd(id: string, user: string, second: number): string {
  return JSON.stringify({ id, source: 'auth', raw: `Nov 25 09:59:${String(second % 60).padStart(2, '0')} host1 sshd[42]: Failed password for ${user} from 203.0.113.9 port 22 ssh2` });
}

async function run(messages: DeliveredMessage[]): Promise<AnalysisResult> {
  const result = await analyse({ messages: packMessages(messages), defaultOrgId: 'org-a', timezone: 'UTC', rules: { generation: 1, rules: [] } });
  if (result === 'stale') throw new Error('no matcher was named, so the task cannot be stale');
  return result;
}

function rows(result: AnalysisResult, table: string): Record<string, unknown>[] {
  const rows = result.inserts.find((r) => r.table === table)!;
  const decoded = readRows(rows.body, rows.columns);
  expect(decoded).toHaveLength(rows.rows);
  return decoded;
}

describe('analyse over a task longer than a slice', () => {
  it('writes one events row per artifact, the last copy of an id sent twice, and one node row per entity', async () => {
    const twice = randomUUID();
    const messages = [message(0, sshd(twice, 'first-copy', 0))];
    for (let i = 1; i < 349; i++) messages.push(message(i, sshd(randomUUID(), `user${i}`, i)));
    messages.push(message(349, sshd(twice, 'last-copy', 59)));

    const result = await run(messages);

    const events = rows(result, 'events');
    expect(events).toHaveLength(349);
    const copies = events.filter((e) => e.artifact_id === twice);
    expect(copies).toHaveLength(1);
    expect((copies[0]!.fields as Record<string, string[]>)['user.name']).toEqual(['last-copy']);
    // Every message names the same source address and host: one node row each for the whole task.
    const nodes = rows(result, 'nodes');
    expect(nodes.filter((n) => n.value === '203.0.113.9')).toHaveLength(1);
    expect(nodes.filter((n) => n.value === 'host1')).toHaveLength(1);
    expect(nodes.filter((n) => n.type === 'user')).toHaveLength(349);
    expect(result.rejected).toEqual([]);
  });

  it('sends back the audit records that join, in the order of the task, and nothing for other lines', async () => {
    const audit = (serial: number, type: string, body: string) => JSON.stringify({ id: randomUUID(), source: 'auditd', raw: `node=h1 type=${type} msg=audit(1764064800.000:${serial}): ${body}` });
    const messages = [
      message(0, audit(7, 'SYSCALL', 'arch=c000003e syscall=59 success=yes exit=0 pid=10 comm="id" exe="/usr/bin/id"')),
      message(1, sshd(randomUUID(), 'alice', 1)),
      message(2, audit(8, 'USER_LOGIN', `pid=1 uid=0 msg='op=login acct="alice" exe="/usr/sbin/sshd" hostname=? addr=? terminal=ssh res=success'`)),
      message(3, audit(7, 'EXECVE', 'argc=1 a0="id"')),
      message(4, audit(7, 'EOE', '')),
    ];
    for (let i = 5; i < 150; i++) messages.push(message(i, sshd(randomUUID(), `user${i}`, i)));
    messages.push(message(150, audit(9, 'CWD', 'cwd="/"')));

    const result = await run(messages);

    expect(result.auditRecords.map((r) => [r.serial, r.type, r.node])).toEqual([
      [7, 'SYSCALL', 'h1'],
      [7, 'EXECVE', 'h1'],
      [7, 'EOE', 'h1'],
      [9, 'CWD', 'h1'],
    ]);
    expect(result.auditRecords[0]!.fields).toMatchObject({ 'process.executable': '/usr/bin/id', 'event.action': 'execve' });
    expect(rows(result, 'events')).toHaveLength(151);
  });

  it('reports a message that does not decode or parse by its place in the task', async () => {
    const messages = Array.from({ length: 250 }, (_, i) => message(i, sshd(randomUUID(), `user${i}`, i)));
    messages[7] = message(7, '{"source": "auth"');
    messages[231] = message(231, JSON.stringify({ id: randomUUID(), source: 'suricata', raw: 'not json at all' }));

    const result = await run(messages);

    expect(result.rejected.map((r) => r.index).sort((a, b) => a - b)).toEqual([7, 231]);
    expect(result.rejected.find((r) => r.index === 7)!.reason).toMatch(/^cannot decode/);
    expect(result.rejected.find((r) => r.index === 231)!.reason).toMatch(/^parse failure/);
    expect(result.failureEvents).toHaveLength(1);
    expect(rows(result, 'events')).toHaveLength(248);
  });
});
