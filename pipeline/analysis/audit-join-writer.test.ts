// The audit join between batches, against a real store and the journaled
// hot state: what waits survives a restart, a batch handled again after a
// crash writes no second row, records late for an ended serial change nothing.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { stableId } from '../../lib/ids.js';
import { useTestStore } from '../../test/helpers/store.js';
import type { ParsedEvent } from '../../topics/index.js';
import { parseRaw } from '../parser/registry.js';
import { LocalState } from '../state/local-state.js';
import { auditRecordOf, joinedEventId, type AuditRecord } from './audit-join.js';
import { AuditJoinWriter } from './audit-join-writer.js';

const db = useTestStore('audit-join-writer');
// Received now: events rows live 90 days from created_at (older parts are dropped whole at their next merge).
const RECEIVED = new Date().toISOString();

function records(serial: number, org: string): AuditRecord[] {
  const head = (type: string) => `node=app7 type=${type} msg=audit(1700000400.250:${serial}):`;
  const lines = [
    `${head('SYSCALL')} arch=c000003e syscall=87 success=yes exit=0 a0=7ffd a1=0 a2=0 a3=0 items=2 ppid=900 pid=901 auid=1000 uid=0 gid=0 euid=0 suid=0 fsuid=0 egid=0 sgid=0 fsgid=0 tty=pts1 ses=5 comm="rm" exe="/usr/bin/rm" key="logs"`,
    `${head('CWD')} cwd="/var/log"`,
    `${head('PATH')} item=0 name="/var/log/" inode=2 dev=fd:00 mode=040755 ouid=0 ogid=0 rdev=00:00 nametype=PARENT`,
    `${head('PATH')} item=1 name="auth.log" inode=77 dev=fd:00 mode=0100640 ouid=0 ogid=4 rdev=00:00 nametype=DELETE`,
    `${head('PROCTITLE')} proctitle=726D00617574682E6C6F67`,
    `${head('EOE')} `,
  ];
  return lines.map((raw) => {
    const { parser, fields } = parseRaw(raw, { source: 'auditd', receivedAt: Date.parse(RECEIVED) });
    const event: ParsedEvent = { artifact_id: stableId(org, raw), org_id: org, source: 'auditd', timestamp: RECEIVED, received_at: RECEIVED, parser, raw, fields };
    return auditRecordOf(event)!;
  });
}

async function joinedRows(org: string, serial: number): Promise<Record<string, string[]>[]> {
  const id = joinedEventId({ org_id: org, node: 'app7', epoch: '1700000400.250', serial });
  const result = await db.store.query({ query: 'SELECT fields FROM events WHERE org_id = {org:String} AND artifact_id = {id:UUID}', query_params: { org, id }, format: 'JSONEachRow' });
  return (await result.json<{ fields: Record<string, string[]> }>()).map((r) => r.fields);
}

let dir: string;
let state: LocalState;
let clock: number;

function writer(): AuditJoinWriter {
  return new AuditJoinWriter({ state, store: db.store, group: 'analysis', topic: 'artifacts.raw', now: () => clock });
}

beforeEach(async () => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'cairn-audit-join-'));
  state = await LocalState.open(path.join(dir, 'state.journal'));
  clock = Date.parse('2026-01-01T00:00:00Z');
});
afterEach(async () => {
  await state.close();
  fs.rmSync(dir, { recursive: true, force: true });
});

describe('the audit join between batches', () => {
  it('finishes a serial cut by a batch boundary after the process restarted in between', async () => {
    const org = 'org-restart';
    const all = records(1, org);
    await writer().handle(0, all.slice(0, 2));
    expect(await joinedRows(org, 1)).toEqual([]);
    // The process goes away after the first batch committed; what waits is in the state journal.
    await state.close();
    state = await LocalState.open(path.join(dir, 'state.journal'));
    clock += 500;
    await writer().handle(0, all.slice(2));
    const rows = await joinedRows(org, 1);
    expect(rows).toHaveLength(1);
    expect(rows[0]).toMatchObject({
      'event.category': ['file'],
      'event.type': ['deletion'],
      'event.action': ['unlink'],
      'file.path': ['/var/log/auth.log'],
      'process.title': ['rm auth.log'],
      'process.working_directory': ['/var/log'],
      'auditd.log.records': ['6'],
      'auditd.log.complete': ['true'],
    });
    expect(await state.get('audit-join:analysis:artifacts.raw:0')).toBeNull();
  });

  it('writes no second row for a batch handled again after a crash between its writes and its commit', async () => {
    const org = 'org-crash';
    const all = records(2, org);
    const join = writer();
    await join.handle(0, all.slice(0, 3));
    // The second batch writes its join and its state, then the process dies before the commit:
    await join.handle(0, all.slice(3));
    // ... and the batch comes again, to a new process.
    await writer().handle(0, all.slice(3));
    // A crash before the state write instead: the batch comes again onto the state it started from.
    const other = records(3, org);
    await join.handle(0, other.slice(0, 3));
    const before = await state.get('audit-join:analysis:artifacts.raw:0');
    await join.handle(0, other.slice(3));
    await state.set('audit-join:analysis:artifacts.raw:0', before!);
    await writer().handle(0, other.slice(3));
    expect(await joinedRows(org, 2)).toHaveLength(1);
    expect(await joinedRows(org, 3)).toHaveLength(1);
    expect((await joinedRows(org, 3))[0]!['auditd.log.records']).toEqual(['6']);
  });

  it('ends a serial after the wait, and records that come after it add no second row', async () => {
    const org = 'org-late';
    const all = records(4, org);
    const join = writer();
    await join.handle(0, all.slice(0, 2));
    clock += 2500;
    // A batch of other artifacts only: the wait is over.
    await join.handle(0, []);
    const partial = await joinedRows(org, 4);
    expect(partial).toHaveLength(1);
    expect(partial[0]).toMatchObject({ 'auditd.log.complete': ['false'], 'auditd.log.records': ['2'], 'auditd.log.record_types': ['SYSCALL', 'CWD'] });
    await join.handle(0, all.slice(2));
    expect(await joinedRows(org, 4)).toEqual(partial);
  });

  it('keeps each partition apart', async () => {
    const org = 'org-partitions';
    const all = records(5, org);
    const join = writer();
    await join.handle(1, all.slice(0, 2));
    await join.handle(2, records(6, org).slice(0, 2));
    expect(JSON.parse((await state.get('audit-join:analysis:artifacts.raw:1'))!)).toHaveLength(1);
    await join.handle(1, all.slice(2));
    expect(await joinedRows(org, 5)).toHaveLength(1);
    expect(await state.get('audit-join:analysis:artifacts.raw:1')).toBeNull();
    expect(JSON.parse((await state.get('audit-join:analysis:artifacts.raw:2'))!)).toHaveLength(1);
  });
});
