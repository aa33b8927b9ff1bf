// The two back ends of the query language agree: random queries (printed to
// text and parsed back) over random events give the same artifacts in
// ClickHouse (query/to-sql.ts) and in memory (query/match.ts). fast-check
// generates both; the seed is printed, so a failure can be replayed with
// CAIRN_QUERY_SEED=<seed>.
import fc from 'fast-check';
import { beforeAll, describe, expect, it } from 'vitest';
import { toClickHouseTime } from '../clickhouse/client.js';
import { SqlParams } from '../clickhouse/sql.js';
import { eventFieldSubquery, insertEvents } from '../clickhouse/tables/events.js';
import { eventsTarget } from '../api/search-sql.js';
import type { QueryNode } from '../query/ast.js';
import { compileMatcher, PreparedTarget, type MatchTarget } from '../query/match.js';
import { parseQuery } from '../query/parse.js';
import { printQuery } from '../query/print.js';
import { answerableFromEvents, toSqlCondition } from '../query/to-sql.js';
import { useTestStore } from './helpers/store.js';

const ORG = 'differential';
const SEED = Number(process.env.CAIRN_QUERY_SEED ?? Date.now() % 2_147_483_647);
const QUERIES = 3000;
const BATCH = 100;

// Small vocabularies, so that random queries often hit and the edge cases (case, non-ASCII, bad numbers) come up.
const WORDS = ['Failed', 'password', 'for', 'ROOT', 'root', 'from', '10.0.0.1', 'sshd[42]:', 'Accepted', 'admin.php', 'héllo', 'user_x', 'invalid', 'a%b', 'x_y'];
const VALUES: Record<string, string[]> = {
  'user.name': ['root', 'Admin', 'ADMIN', 'alice', 'bob smith', 'é-user', 'a*b', 'x_y', '%', 'ROOT'],
  'source.ip': ['10.0.0.1', '10.1.2.3', '192.168.1.5', '203.0.113.9', '2001:db8::1', '2001:DB8::ff', '::ffff:10.0.0.1', '01.2.3.4', '1.2.3', 'not-ip', '::1'],
  'source.port': ['22', '80', '443', '8080', '-1', '1.5', '1e3', ' 5', 'abc', '007', '99999999999'],
  tags: ['web', 'ssh', 'auth', 'Web', 'a b'],
  'url.path': ['/admin/login.php', '/index.html', '/a/b', '/ADMIN', '/wp-login.php', '/é'],
  '@timestamp': ['2026-11-23T12:00:00.000Z', '2026-01-01T00:00:00Z', '2026-02-30T00:00:00Z', '2026-11-23T12:00:00.1239Z', '2026-11-23T14:00:00+02:00', 'yesterday', '2026-11-23 12:00:00'],
};
const FIELDS = Object.keys(VALUES);
const SOURCES = ['auth', 'web', 'Auth'];
const CIDRS = ['10.0.0.0/8', '10.0.0.0/24', '192.168.0.0/16', '2001:db8::/32', '::ffff:0:0/96', '0.0.0.0/0', '::/0', '10.0.0.1/32'];
const REGEXES = ['ro+t', 'a.*', '[a-z]+', '.*php', '\\d+', '(?:admin|root)', '.*é.*', '\\w+\\s\\w+', '[^/]*', '.{2,4}', 'ADMIN|admin', '/[a-z]+/.*'];
const NUMBERS = ['0', '22', '80', '443', '1.5', '-1', '8080', '100000'];
const TIMES = ['2026-01-01T00:00:00Z', '2026-11-23T12:00:00Z', '2026-11-23T12:00:00.123Z', '2026-06-01T00:00:00+02:00'];

const event = fc.record({
  source: fc.constantFrom(...SOURCES),
  raw: fc.array(fc.constantFrom(...WORDS), { minLength: 1, maxLength: 8 }).map((w) => w.join(' ')),
  fields: fc.record(Object.fromEntries(FIELDS.map((f) => [f, fc.oneof(fc.constantFrom(...VALUES[f]!), fc.uniqueArray(fc.constantFrom(...VALUES[f]!), { minLength: 2, maxLength: 3 }))])), { requiredKeys: [] }),
});

/** A glob from a value: a slice of it turned into *, ? or nothing, the rest kept literal. */
function globOf(value: string): fc.Arbitrary<string> {
  return fc.tuple(fc.nat(value.length), fc.nat(value.length), fc.constantFrom('*', '?', '*?', '')).map(([a, b, wildcard]) => {
    const [i, j] = a <= b ? [a, b] : [b, a];
    const literal = (text: string) => text.replace(/[*?\\]/g, '\\$&');
    return `${literal(value.slice(0, i))}${wildcard}${literal(value.slice(j))}`;
  });
}

const withWildcard = (pattern: string) => /[*?]/.test(pattern.replace(/\\./g, ''));

const leaf: fc.Arbitrary<QueryNode> = fc.oneof(
  fc.constantFrom(...WORDS).map((value): QueryNode => ({ kind: 'text', value, phrase: false })),
  fc.tuple(fc.constantFrom(...WORDS), fc.constantFrom(...WORDS)).map(([a, b]): QueryNode => ({ kind: 'text', value: `${a} ${b}`, phrase: true })),
  fc.constantFrom(...WORDS).chain(globOf).filter(withWildcard).map((pattern): QueryNode => ({ kind: 'text_glob', pattern })),
  fc.constantFrom(...FIELDS).chain((field) => fc.constantFrom(...VALUES[field]!).map((value): QueryNode => ({ kind: 'eq', field, value }))),
  fc.constantFrom(...FIELDS).chain((field) => fc.constantFrom(...VALUES[field]!).chain(globOf).filter(withWildcard).map((pattern): QueryNode => ({ kind: 'glob', field, pattern }))),
  fc.constantFrom(...FIELDS).map((field): QueryNode => ({ kind: 'exists', field })),
  fc.constantFrom(...CIDRS).map((cidr): QueryNode => ({ kind: 'cidr', field: 'source.ip', cidr })),
  fc.tuple(fc.option(fc.constantFrom(...NUMBERS)), fc.option(fc.constantFrom(...NUMBERS)), fc.boolean(), fc.boolean()).map(
    ([lo, hi, li, ui]): QueryNode => ({ kind: 'range', field: 'source.port', type: 'number', lower: lo === null ? undefined : { value: lo, inclusive: li }, upper: hi === null ? undefined : { value: hi, inclusive: ui } }),
  ),
  fc.tuple(fc.option(fc.constantFrom(...TIMES)), fc.option(fc.constantFrom(...TIMES)), fc.boolean()).map(
    ([lo, hi, inc]): QueryNode => ({ kind: 'range', field: '@timestamp', type: 'time', lower: lo === null ? undefined : { value: lo, inclusive: inc }, upper: hi === null ? undefined : { value: hi, inclusive: !inc } }),
  ),
  fc.tuple(fc.constantFrom(...FIELDS), fc.constantFrom(...REGEXES)).map(([field, pattern]): QueryNode => ({ kind: 'regex', field, pattern })),
  fc.constantFrom(...SOURCES).map((value): QueryNode => ({ kind: 'eq', field: 'source', value })),
);

const query: fc.Arbitrary<QueryNode> = fc.letrec<{ node: QueryNode }>((tie) => ({
  node: fc.oneof(
    { maxDepth: 3, depthIdentifier: 'q' },
    leaf,
    fc.array(tie('node'), { minLength: 2, maxLength: 3 }).map((children): QueryNode => ({ kind: 'and', children })),
    fc.array(tie('node'), { minLength: 2, maxLength: 3 }).map((children): QueryNode => ({ kind: 'or', children })),
    tie('node').map((child): QueryNode => ({ kind: 'not', child })),
  ),
})).node;

const db = useTestStore('diff');
const targets: MatchTarget[] = [];

beforeAll(async () => {
  const now = new Date().toISOString();
  fc.sample(event, { numRuns: 80, seed: SEED }).forEach((e, i) =>
    targets.push({ id: `00000000-0000-7000-8000-${String(i).padStart(12, '0')}`, source: e.source, raw: e.raw, fields: e.fields as MatchTarget['fields'] }),
  );
  await db.store.insert({
    table: 'artifacts',
    format: 'JSONEachRow',
    values: targets.map((t) => ({ id: t.id, org_id: ORG, source: t.source, raw: t.raw, timestamp: toClickHouseTime(now), metadata: '{}', created_at: toClickHouseTime(now) })),
  });
  await insertEvents(db.store, targets.map((t) => ({ artifact_id: t.id, org_id: ORG, source: t.source, timestamp: now, parser: 'test', fields: t.fields, created_at: now })));
}, 120_000);

describe('query back ends', () => {
  it(`agree on ${QUERIES} random queries over random events (seed ${SEED})`, async () => {
    const queries = fc.sample(query, { numRuns: QUERIES, seed: SEED }).map((tree) => printQuery(tree));
    const fieldSubquery = eventFieldSubquery({ orgId: ORG });
    const prepared = targets.map((t) => new PreparedTarget(t));
    const disagreements: string[] = [];
    let compared = 0;
    let fromEventsCompared = 0;
    for (let b = 0; b < queries.length; b += BATCH) {
      const batch = queries.slice(b, b + BATCH);
      const params = new SqlParams();
      const trees = batch.map((text) => parseQuery(text));
      const conditions = trees.map((tree) => toSqlCondition(tree, { textColumn: 'raw', fieldSubquery }, params) ?? '1');
      const result = await db.store.query({
        query: `SELECT toString(id) AS id, [${conditions.map((c) => `toUInt8(${c})`).join(', ')}] AS hits FROM artifacts WHERE org_id = ${params.add(ORG, 'String')} ORDER BY id`,
        query_params: params.values,
        format: 'JSONEachRow',
      });
      const rows = await result.json<{ id: string; hits: number[] }>();
      expect(rows).toHaveLength(targets.length);
      // Queries that need a parsed event are answered from the events table in search: the same tree, compiled for events rows.
      const fromEvents = trees.map((tree) => answerableFromEvents(tree));
      const eventParams = new SqlParams();
      const eventConditions = trees.map((tree, q) => (fromEvents[q] ? toSqlCondition(tree, eventsTarget({ orgId: ORG }), eventParams) ?? '1' : '0'));
      const eventRows = await (
        await db.store.query({
          query: `SELECT toString(artifact_id) AS id, [${eventConditions.map((c) => `toUInt8(${c})`).join(', ')}] AS hits FROM events WHERE org_id = ${eventParams.add(ORG, 'String')} ORDER BY id`,
          query_params: eventParams.values,
          format: 'JSONEachRow',
        })
      ).json<{ id: string; hits: number[] }>();
      trees.forEach((tree, q) => {
        const matcher = compileMatcher(tree);
        const inSql = new Set(rows.filter((r) => r.hits[q] === 1).map((r) => r.id));
        if (fromEvents[q]) {
          fromEventsCompared++;
          const inEvents = new Set(eventRows.filter((r) => r.hits[q] === 1).map((r) => r.id));
          if ([...inEvents].some((id) => !inSql.has(id)) || inEvents.size !== inSql.size) disagreements.push(`${batch[q]}\n  the events-table answer differs from the artifacts-table answer`);
        }
        const inMemory = new Set(prepared.filter((p) => matcher(p)).map((p) => p.target.id));
        compared++;
        const onlySql = [...inSql].filter((id) => !inMemory.has(id));
        const onlyMemory = [...inMemory].filter((id) => !inSql.has(id));
        if (onlySql.length || onlyMemory.length) {
          const show = (id: string) => JSON.stringify(targets.find((t) => t.id === id));
          disagreements.push(`${batch[q]}\n  only in SQL: ${onlySql.map(show).join(' ')}\n  only in memory: ${onlyMemory.map(show).join(' ')}`);
        }
      });
    }
    expect(compared).toBe(QUERIES);
    expect(fromEventsCompared, 'queries answered from the events table too').toBeGreaterThan(QUERIES / 10);
    expect(disagreements.slice(0, 5), `seed ${SEED}: ${disagreements.length} of ${QUERIES} queries disagree`).toEqual([]);
  }, 180_000);
});
