// Rows encoded in RowBinary arrive in the store as they were written: every
// table cairn writes in bulk, values that text formats escape, and inserts
// far larger than what chdb's own binary insert kept.
import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { useTestStore } from '../test/helpers/store.js';
import { concatRows, insertEncoded, withoutRows } from './encoded-rows.js';
import { encodeArtifacts, type Artifact } from './tables/artifacts.js';
import { encodeEdgeSightings } from './tables/edges.js';
import { encodeEvents, type EventRow } from './tables/events.js';
import { encodeNodeSightings } from './tables/nodes.js';
import { withoutStoredEvents } from './tables/replays.js';

const db = useTestStore('encoded-rows');

async function rows<T>(query: string): Promise<T[]> {
  return (await db.store.query({ query, format: 'JSONEachRow' })).json<T>();
}

const AWKWARD = ['quote \' and "double"', 'back\\slash', 'new\nline\ttab', 'nul\0byte', 'ünïcødé ✓ 日本', 'x'.repeat(70_000)];

function artifact(n: number, raw: string): Artifact {
  const at = new Date(Date.UTC(2026, 10, 26, 12, 0, 0, n)).toISOString();
  return { id: randomUUID(), org_id: 'org-rb', source: 'test', raw, timestamp: at, metadata: { n, note: raw.slice(0, 20) }, created_at: at };
}

describe('RowBinary inserts', () => {
  it('store artifacts whole: awkward text byte for byte, and 20,000 rows (about 4 MiB) in one insert', async () => {
    const awkward = AWKWARD.map((raw, n) => artifact(n, raw));
    const many = Array.from({ length: 20_000 }, (_, n) => artifact(n, `line ${n} ${'y'.repeat(200)}`));
    await insertEncoded(db.store, encodeArtifacts(awkward));
    await insertEncoded(db.store, encodeArtifacts(many));

    const stored = await rows<{ id: string; raw: string; metadata: string; timestamp: string }>(
      `SELECT toString(id) AS id, raw, metadata, timestamp FROM artifacts WHERE id IN (${awkward.map((a) => `'${a.id}'`).join(',')})`,
    );
    expect(new Map(stored.map((r) => [r.id, r.raw]))).toEqual(new Map(awkward.map((a) => [a.id, a.raw])));
    const first = stored.find((r) => r.id === awkward[0]!.id)!;
    expect(JSON.parse(first.metadata)).toEqual(awkward[0]!.metadata);
    expect(first.timestamp).toBe('2026-11-26 12:00:00.000');
    const [counted] = await rows<{ n: string; distinct: string }>(`SELECT count() AS n, uniqExact(id) AS distinct FROM artifacts WHERE raw LIKE 'line %'`);
    expect([Number(counted!.n), Number(counted!.distinct)]).toEqual([20_000, 20_000]);
  });

  it('store events with their field map, promoted columns and event time, null or not', async () => {
    const base = { org_id: 'org-rb', source: 'auth', parser: 'sshd', timestamp: '2026-11-26T12:00:00.000Z', created_at: '2026-11-26T12:00:01.500Z' };
    const events: EventRow[] = [
      { ...base, artifact_id: randomUUID(), event_time: '2026-11-26T11:59:59.250Z', fields: { 'source.ip': '203.0.113.9', 'source.port': 22, 'dns.resolved_ip': ['192.0.2.1', '192.0.2.2'], 'x.flag': true, 'x.awkward': AWKWARD[3]! } },
      { ...base, artifact_id: randomUUID(), fields: { 'user.name': 'ünïcødé ✓ 日本' } },
    ];
    await insertEncoded(db.store, encodeEvents(events));

    const stored = await rows<{ id: string; event_time: string | null; fields: Record<string, string[]>; f_source_ip: string[]; f_user_name: string[]; created_at: string }>(
      `SELECT toString(artifact_id) AS id, event_time, fields, f_source_ip, f_user_name, created_at FROM events WHERE org_id = 'org-rb' ORDER BY event_time IS NULL`,
    );
    expect(stored).toEqual([
      {
        id: events[0]!.artifact_id,
        event_time: '2026-11-26 11:59:59.250',
        fields: { 'source.ip': ['203.0.113.9'], 'source.port': ['22'], 'dns.resolved_ip': ['192.0.2.1', '192.0.2.2'], 'x.flag': ['true'], 'x.awkward': [AWKWARD[3]] },
        f_source_ip: ['203.0.113.9'],
        f_user_name: [],
        created_at: '2026-11-26 12:00:01.500',
      },
      { id: events[1]!.artifact_id, event_time: null, fields: { 'user.name': ['ünïcødé ✓ 日本'] }, f_source_ip: [], f_user_name: ['ünïcødé ✓ 日本'], created_at: '2026-11-26 12:00:01.500' },
    ]);
  });

  it('leave out on a repeat the events already stored, and only those', async () => {
    const base = { org_id: 'org-repeat', source: 'auth', parser: 'sshd', created_at: '2026-11-26T12:00:00.000Z', fields: { 'event.action': 'x' } };
    const events: EventRow[] = Array.from({ length: 6 }, (_, n) => ({ ...base, artifact_id: randomUUID(), timestamp: new Date(Date.UTC(2026, 10, 26, 10, n)).toISOString() }));
    await insertEncoded(db.store, encodeEvents([events[1]!, events[4]!]));

    const rest = await withoutStoredEvents(db.store, encodeEvents(events));
    expect(rest.rows).toBe(4);
    await insertEncoded(db.store, rest);

    const stored = await rows<{ id: string; n: string }>(`SELECT toString(artifact_id) AS id, count() AS n FROM events WHERE org_id = 'org-repeat' GROUP BY id`);
    expect(new Map(stored.map((r) => [r.id, Number(r.n)]))).toEqual(new Map(events.map((e) => [e.artifact_id, 1])));
  });

  it('fold node sightings by id and edge sightings into edges with distinct artifacts', async () => {
    const node = { org_id: 'org-graph', type: 'ip', value: '198.51.100.7', id: randomUUID() };
    await insertEncoded(db.store, encodeNodeSightings([{ ...node, first_seen: '2026-11-26T10:00:00.000Z', last_seen: '2026-11-26T10:05:00.000Z' }]));
    await insertEncoded(db.store, encodeNodeSightings([{ ...node, first_seen: '2026-11-26T09:00:00.000Z', last_seen: '2026-11-26T09:30:00.000Z' }]));
    const edge = { org_id: 'org-graph', id: randomUUID(), type: 'connected_to', source_id: node.id, target_id: randomUUID() };
    const artifacts = [randomUUID(), randomUUID()];
    await insertEncoded(db.store, encodeEdgeSightings([...artifacts, artifacts[0]!].map((artifact_id, n) => ({ ...edge, artifact_id, seen_at: `2026-11-26T10:0${n}:00.000Z` }))));

    expect(await rows(`SELECT value, min(first_seen) AS first, max(last_seen) AS last FROM nodes WHERE id = '${node.id}' GROUP BY value`)).toEqual([
      { value: '198.51.100.7', first: '2026-11-26 09:00:00.000', last: '2026-11-26 10:05:00.000' },
    ]);
    expect(await rows(`SELECT toString(source_id) AS source, min(first_seen) AS first, toString(uniqCombined64Merge(artifacts)) AS n FROM edges WHERE id = '${edge.id}' GROUP BY source`)).toEqual([
      { source: node.id, first: '2026-11-26 10:00:00.000', n: '2' },
    ]);
  });
  it('join encodings of one table into one insert, each row still addressable by its place', async () => {
    const base = { org_id: 'org-concat', source: 'auth', parser: 'sshd', timestamp: '2026-11-26T12:00:00.000Z', created_at: '2026-11-26T12:00:00.000Z' };
    const events: EventRow[] = Array.from({ length: 5 }, (_, n) => ({ ...base, artifact_id: randomUUID(), fields: { 'event.action': `a${n}`, 'x.pad': 'p'.repeat(n * 50) } }));
    const joined = concatRows([encodeEvents(events.slice(0, 2)), encodeEvents(events.slice(2))]);
    expect(joined.rows).toBe(5);
    // Rows found by their place in the joined body: leave out the first of the second encoding.
    await insertEncoded(db.store, withoutRows(joined, (row) => row === 2));
    const stored = await rows<{ id: string; action: string[] }>(`SELECT toString(artifact_id) AS id, fields['event.action'] AS action FROM events WHERE org_id = 'org-concat'`);
    expect(new Map(stored.map((r) => [r.id, r.action]))).toEqual(new Map(events.filter((_, n) => n !== 2).map((e, n) => [e.artifact_id, [`a${n < 2 ? n : n + 1}`]])));

    // The same node in two encodings of one insert folds like two inserts.
    const node = { org_id: 'org-concat', type: 'ip', value: '198.51.100.8', id: randomUUID() };
    await insertEncoded(
      db.store,
      concatRows([
        encodeNodeSightings([{ ...node, first_seen: '2026-11-26T10:00:00.000Z', last_seen: '2026-11-26T10:05:00.000Z' }]),
        encodeNodeSightings([{ ...node, first_seen: '2026-11-26T09:00:00.000Z', last_seen: '2026-11-26T09:30:00.000Z' }]),
      ]),
    );
    expect(await rows(`SELECT min(first_seen) AS first, max(last_seen) AS last FROM nodes WHERE id = '${node.id}'`)).toEqual([{ first: '2026-11-26 09:00:00.000', last: '2026-11-26 10:05:00.000' }]);
    expect(() => concatRows([encodeEvents(events), encodeNodeSightings([{ ...node, first_seen: base.timestamp, last_seen: base.timestamp }])])).toThrow(/rows of nodes and events/);
  });
});
