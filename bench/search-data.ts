// The search benchmark's data set and queries (bench/search.ts), shared with
// bench/reprocess.ts, which searches the same rows while they are re-parsed.
//
// Rows are the sample logs repeated, each with a host token (1 in 5,000
// rows) and a unique sequence token appended, their timestamps spread over
// 30 days. Each has its parsed event (the sample's fields as the parser
// gives them), with source.ip spread (hashed, not by time) over 10.0.0.0/8,
// so a /16 holds 1 row in 256.
import type { Store } from '../clickhouse/client.js';
import { parseRaw } from '../pipeline/parser/registry.js';
import type { SampleLine } from './lib.js';

export const ORG = 'bench';
export const DAYS = 30;
export const FIRST_DAY = Date.parse('2026-10-23T00:00:00Z');

/** The sample's parsed fields as the events table holds them (arrays of strings); none when it does not parse. */
function parsedFields(source: string, raw: string): { parser: string; fields: Record<string, string[]> } {
  try {
    const { parser, fields } = parseRaw(raw, { source, receivedAt: FIRST_DAY });
    return { parser, fields: Object.fromEntries(Object.entries(fields).map(([k, v]) => [k, (Array.isArray(v) ? v : [v]).map(String)])) };
  } catch {
    return { parser: '', fields: {} };
  }
}

/** The samples with their parsed fields, in a table the generator joins row numbers with. */
export async function prepareTemplates(store: Store, samples: SampleLine[]): Promise<void> {
  await store.command({ query: 'DROP TABLE IF EXISTS bench_templates' });
  await store.command({ query: 'CREATE TABLE bench_templates (i UInt32, source String, raw String, parser String, fields Map(String, Array(String))) ENGINE = Memory' });
  await store.insert({ table: 'bench_templates', format: 'JSONEachRow', values: samples.map((s, i) => ({ i, source: s.source, raw: s.raw, ...parsedFields(s.source, s.raw) })) });
}

/**
 * Appends rows [from, to) generated in SQL, a million at a time
 * (prepareTemplates first, with the same samples). Every row arrives now,
 * into one partition, or with `spread` over the last 30 days, a row as long
 * before now as its timestamp is before the last one (a partition a day, as
 * logs shipped as they are written arrive).
 */
export async function generate(store: Store, samples: number, from: number, to: number, arrival: 'now' | 'spread' = 'now'): Promise<void> {
  const spreadMs = DAYS * 86_400_000;
  for (let start = from; start < to; start += 1_000_000) {
    const count = Math.min(1_000_000, to - start);
    // The id derives from the row number, so artifacts and events of one row share it without a join.
    const id = `reinterpretAsUUID(reverse(unhex(lpad(hex(n.number + ${2 ** 40}), 32, '0'))))`;
    const timestamp = `toDateTime64(${FIRST_DAY / 1000}, 3, 'UTC') + toIntervalMillisecond(intDiv(n.number * ${spreadMs}, ${to}))`;
    const rows = `FROM numbers(${start}, ${count}) AS n INNER JOIN bench_templates AS t ON t.i = n.number % ${samples}`;
    const arrived = arrival === 'now' ? 'now64(3)' : `now64(3) - toIntervalMillisecond(${spreadMs} - intDiv(n.number * ${spreadMs}, ${to}))`;
    await store.command({
      query: `INSERT INTO artifacts (id, org_id, source, raw, timestamp, metadata, created_at)
              SELECT ${id}, '${ORG}', t.source,
                     concat(t.raw, ' host=h', toString(n.number % 5000), ' seq=s', toString(n.number)),
                     ${timestamp}, '{}', ${arrived}
              ${rows}`,
    });
    await store.command({
      query: `INSERT INTO events (artifact_id, org_id, source, timestamp, parser, fields, created_at)
              SELECT ${id}, '${ORG}', t.source, ${timestamp}, t.parser,
                     mapUpdate(t.fields, map('source.ip', [concat('10.', toString(cityHash64(n.number) % 256), '.', toString(cityHash64(n.number, 1) % 256), '.', toString(n.number % 256))])),
                     ${arrived}
              ${rows} WHERE t.parser != ''`,
    });
  }
}

export interface QueryKind {
  name: string;
  query: () => string;
}

export const QUERIES: QueryKind[] = [
  { name: 'two common words', query: () => 'Failed password' },
  { name: 'rare token (1 in 5,000)', query: () => `h${Math.floor(Math.random() * 5000)}` },
  { name: 'phrase', query: () => '"Accepted publickey"' },
  { name: 'unique token', query: () => `s${Math.floor(Math.random() * 1_000_000)}` },
  { name: 'address with separators', query: () => '192.168.86.85' },
  { name: 'OR of two rare tokens', query: () => `h${Math.floor(Math.random() * 5000)} OR h${Math.floor(Math.random() * 5000)}` },
  { name: 'field OR', query: () => `source.ip:10.${Math.floor(Math.random() * 256)}.1.2 OR source.ip:10.${Math.floor(Math.random() * 256)}.3.4` },
  { name: 'field wildcard', query: () => 'user.name:adm*' },
  { name: 'text wildcard', query: () => 'authenticat*' },
  { name: 'CIDR /16', query: () => `source.ip:10.${Math.floor(Math.random() * 256)}.0.0/16` },
  { name: 'numeric range', query: () => 'source.port:[1000 TO 2000]' },
  { name: 'comparison and word', query: () => 'source.port>=1024 AND Accepted' },
  { name: 'field not promoted', query: () => `dns.question.type:AAAA OR log.level:${['error', 'warn'][Math.floor(Math.random() * 2)]}` },
];

/** One search through the API, over a random day of the data or all of it: its latency and total. */
export async function timeSearch(url: string, token: string, query: string, range: boolean): Promise<{ ms: number; total: number }> {
  const day = Math.floor(Math.random() * (DAYS - 1));
  const params = new URLSearchParams({ query, limit: '50' });
  if (range) {
    params.set('start', new Date(FIRST_DAY + day * 86_400_000).toISOString());
    params.set('end', new Date(FIRST_DAY + (day + 1) * 86_400_000).toISOString());
  }
  const started = performance.now();
  const res = await fetch(`${url}/api/v1/artifacts?${params}`, { headers: { authorization: `Bearer ${token}` } });
  const body = (await res.json()) as { data: { total: number } };
  if (res.status !== 200) throw new Error(`search answered ${res.status}: ${JSON.stringify(body)}`);
  return { ms: performance.now() - started, total: body.data.total };
}

/**
 * Waits for the merges the generated parts start (at most 10 minutes): they
 * share the two cores, and a store at rest is what this benchmark measures.
 * Returns the seconds waited.
 */
export async function settle(store: Store): Promise<number> {
  const started = Date.now();
  while (Date.now() - started < 600_000) {
    const [row] = await (await store.query({ query: `SELECT count() AS n FROM system.merges WHERE database = currentDatabase()`, format: 'JSONEachRow' })).json<{ n: string }>();
    if (Number(row?.n ?? 0) === 0) break;
    await new Promise((resolve) => setTimeout(resolve, 1000));
  }
  return (Date.now() - started) / 1000;
}
