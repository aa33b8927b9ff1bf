// The user's own blind spots (GET /v1/parser/coverage, `cairn coverage`;
// docs/parsing.md "Your own blind spots"): for the stored artifacts of a
// range, per source and per tag (the device format, vendor, syslog program
// or parser that read each line), how many lines were parsed, how many got
// event.category, how many of those holding an address got source.ip, how
// many only the generic reading understood, and the most frequent shapes of
// the lines nothing understood. One pass in ClickHouse over artifacts joined
// to their events; Node only adds up the groups.
import type { Store } from '../clickhouse/client.js';
import { toClickHouseTime } from '../clickhouse/client.js';
import { queryRows, SqlParams } from '../clickhouse/sql.js';

const HOUR_MS = 3_600_000;
export const DEFAULT_COVERAGE_HOURS = 24;
/** The longest range one report reads. */
export const MAX_COVERAGE_DAYS = 31;
/** The most artifacts one report reads: past it, the newest this many of the range (scanned.start says from when). */
export const MAX_COVERAGE_ARTIFACTS = 1_000_000;
/** Unrecognised shapes listed. */
export const TOP_SHAPES = 20;
/** Bytes of a line searched for an address: an address sits near the start of a log line, and a 256 KiB line must not cost 256 KiB of scanning. */
const ADDRESS_SCAN_BYTES = 4096;
/** Characters of a message turned into its shape. */
const SHAPE_CHARS = 300;

export interface CoverageRange {
  start: string;
  end: string;
}

/** [start, end) as asked, by default the 24 hours before end, and end by default now. */
export function coverageRange(start: string | undefined, end: string | undefined, now = Date.now()): CoverageRange {
  const to = end ? new Date(end).toISOString() : new Date(now).toISOString();
  return { start: start ? new Date(start).toISOString() : new Date(Date.parse(to) - DEFAULT_COVERAGE_HOURS * HOUR_MS).toISOString(), end: to };
}

/** What is wrong with a range the report is asked for, or null. */
export function coverageRangeProblem({ start, end }: CoverageRange): string | null {
  if (start < '1970' || end > '2200') return 'start and end must fall between 1970 and 2200';
  if (start >= end) return 'start must be before end';
  if (Date.parse(end) - Date.parse(start) > MAX_COVERAGE_DAYS * 24 * HOUR_MS) return `the range is at most ${MAX_COVERAGE_DAYS} days`;
  return null;
}

/**
 * What read a line, most specific first:
 * - device: a device catalogue format (`cairn.decoder`, `<vendor>/<format>`);
 * - vendor: `observer.vendor` and `observer.product` a CEF or LEEF header (or any format) names;
 * - program: the syslog tag (`process.name` of a line the syslog reader took; elsewhere process.name is the
 *   process the event is about, as in a Windows process creation);
 * - parser: the format parser's name (json, zeek, windows, suricata-eve, text, kv, ...);
 * - unparsed: no parser read the line (a parse failure).
 */
export type TagKind = 'device' | 'vendor' | 'program' | 'parser' | 'unparsed';

export interface CoverageCounts {
  /** Stored lines (artifacts) of the range. */
  lines: number;
  /** Lines that became an event. */
  events: number;
  /** Lines no parser read: stored, searchable, with no event (lines - events). */
  failures: number;
  /** Events with event.category. */
  categorised: number;
  categorised_share: number | null;
  /** Lines holding an IPv4 or IPv6 address: their event has source.ip (read from the line), or their raw text holds one (failures included). */
  address_lines: number;
  /** Of those, the lines whose event has source.ip. */
  address_lines_with_source_ip: number;
  source_ip_share: number | null;
  /** Events marked cairn.decoder: generic (read only by the generic reading). */
  generic: number;
  generic_share: number | null;
}

export interface TagCoverage extends CoverageCounts {
  tag_kind: TagKind;
  /** `fortinet/fortigate`, `Acme Widget`, `sshd`, `json`; '' for unparsed lines. */
  tag: string;
}

export interface SourceCoverage extends CoverageCounts {
  source: string;
  tags: TagCoverage[];
}

export interface MessageShape {
  /** The message (a parsed line's `message`, else the raw line) with quoted text, addresses, MAC addresses, hex strings and numbers masked: <str>, <ip>, <mac>, <hex>, <num>. */
  shape: string;
  count: number;
  source: string;
  tag_kind: TagKind;
  tag: string;
  /** One artifact of this shape (the greatest id: with UUIDv7 ids, about the newest). */
  example_artifact_id: string;
}

export interface CoverageReport {
  start: string;
  end: string;
  /** What was read: every artifact of the range, or past the limit its newest ones (from scanned.start). */
  scanned: { artifacts: number; limit: number; truncated: boolean; start: string };
  totals: CoverageCounts;
  sources: SourceCoverage[];
  /** The most frequent shapes of lines without event.category or that failed to parse. */
  unrecognised_shapes: MessageShape[];
}

const OCTET = '(?:25[0-5]|2[0-4][0-9]|1[0-9][0-9]|[1-9]?[0-9])';
const IPV4 = `${OCTET}(?:\\.${OCTET}){3}`;
const HEX4 = '[0-9A-Fa-f]{1,4}';
// Eight groups, or fewer around "::" (times such as 10:00:01 and MAC addresses have no "::").
const IPV6 = `(?:(?:${HEX4}:){7}${HEX4}|(?:${HEX4}(?::${HEX4}){0,6})?::(?:${HEX4}(?::${HEX4}){0,6})?)`;

/** An address standing as a token of its own: not part of a longer dotted number (an OID, a version) or of a word. */
export const ADDRESS_PATTERN = `(?:^|[^0-9A-Za-z_.])${IPV4}(?:[^0-9A-Za-z_.]|\\.[^0-9]|\\.$|$)|(?:^|[^0-9A-Za-z_:.])${IPV6}(?:[^0-9A-Za-z_:]|$)`;

/**
 * The masks making a message its shape, in order (RE2 patterns for ClickHouse's replaceRegexpAll; every one
 * runs in linear time). JSON keys are set aside first (\x01) so that masking quoted text keeps them.
 */
const SHAPE_MASKS: readonly [pattern: string, replacement: string][] = [
  ['"([^"\\\\]{1,64})"(\\s*):', '\x01\\1\x01\\2:'],
  ['"(?:[^"\\\\]|\\\\.)*"', '<str>'],
  ["(^|[^0-9A-Za-z_])'[^']*'", '\\1<str>'],
  [`(^|[^0-9A-Za-z_.])${IPV4}`, '\\1<ip>'],
  [`(^|[^0-9A-Za-z_:.])${IPV6}`, '\\1<ip>'],
  ['\\b[0-9A-Fa-f]{2}(?:[:-][0-9A-Fa-f]{2}){5}\\b', '<mac>'],
  ['\\b(?:0x[0-9A-Fa-f]+|[0-9A-Fa-f]{8,}(?:-[0-9A-Fa-f]{4,})*)\\b', '<hex>'],
  // A token that starts with a digit is a value (12, 3.5, 35ms, 2nd); ssh2 or x509 is a word.
  ['(^|[^0-9A-Za-z_])[0-9][0-9A-Za-z_]*(?:\\.[0-9A-Za-z_]+)*', '\\1<num>'],
  ['\x01', '"'],
];

function maskedShape(text: string, params: SqlParams): string {
  let sql = `substringUTF8(${text}, 1, ${SHAPE_CHARS})`;
  for (const [pattern, replacement] of SHAPE_MASKS) sql = `replaceRegexpAll(${sql}, ${params.add(pattern, 'String')}, ${params.add(replacement, 'String')})`;
  return sql;
}

/**
 * The first value of an event field that has no column of its own, or ''. Found by its place among the map's
 * keys: at 1M events three lookups this way cost about a third of `fields['name']`, which builds every row's
 * value array.
 */
function firstValue(field: string, params: SqlParams): string {
  return `fields.values[indexOf(fields.keys, ${params.add(field, 'String')})][1]`;
}

/** Code-unit order, as ClickHouse sorts strings (by bytes) for ASCII text. */
const byText = (a: string, b: string): number => (a < b ? -1 : a > b ? 1 : 0);
const num = (v: unknown): number => (v === null || v === undefined || v === '' ? 0 : Number(v));
const ratio = (a: number, b: number): number | null => (b > 0 ? Number((a / b).toFixed(4)) : null);

const COUNT_KEYS = ['lines', 'events', 'categorised', 'address_lines', 'address_lines_with_source_ip', 'generic'] as const;
type RawCounts = Record<(typeof COUNT_KEYS)[number], number>;

function withShares(c: RawCounts): CoverageCounts {
  return {
    lines: c.lines,
    events: c.events,
    failures: c.lines - c.events,
    categorised: c.categorised,
    categorised_share: ratio(c.categorised, c.events),
    address_lines: c.address_lines,
    address_lines_with_source_ip: c.address_lines_with_source_ip,
    source_ip_share: ratio(c.address_lines_with_source_ip, c.address_lines),
    generic: c.generic,
    generic_share: ratio(c.generic, c.events),
  };
}

function sum(counts: RawCounts[]): RawCounts {
  const total = Object.fromEntries(COUNT_KEYS.map((k) => [k, 0])) as RawCounts;
  for (const c of counts) for (const k of COUNT_KEYS) total[k] += c[k];
  return total;
}

/** An artifact of a range past its limit: the newest `limit` artifacts are those after it in (timestamp, id) order. */
interface Cut {
  timestamp: string;
  id: string;
}

/** Where the newest `limit` artifacts of the range begin, or null when the range holds no more than that. */
async function newestCut(store: Store, orgId: string, range: CoverageRange, limit: number): Promise<Cut | null> {
  const params = new SqlParams();
  // Per tag, its counts and its most frequent shapes (the report's most frequent are among them).
  const rows = (await queryRows(
    store,
    `SELECT toString(timestamp) AS at, toString(id) AS artifact FROM artifacts
     WHERE org_id = ${params.add(orgId, 'String')} AND timestamp >= ${params.add(toClickHouseTime(range.start), 'DateTime64(3)')} AND timestamp < ${params.add(toClickHouseTime(range.end), 'DateTime64(3)')}
     ORDER BY timestamp DESC, id DESC LIMIT 1 OFFSET ${params.add(limit, 'UInt64')}`,
    params,
  )) as { at: string; artifact: string }[];
  return rows[0] ? { timestamp: `${rows[0].at.replace(' ', 'T')}Z`, id: rows[0].artifact } : null;
}

export async function coverageReport(store: Store, orgId: string, range: CoverageRange, { maxArtifacts = MAX_COVERAGE_ARTIFACTS } = {}): Promise<CoverageReport> {
  const cut = await newestCut(store, orgId, range, maxArtifacts);
  const params = new SqlParams();
  const org = params.add(orgId, 'String');
  const end = params.add(toClickHouseTime(range.end), 'DateTime64(3)');
  // Past the limit, the artifacts after the cut in the table's own order (timestamp, id): exactly the newest maxArtifacts.
  const inRange = (idColumn: string): string => {
    if (!cut) return `org_id = ${org} AND timestamp >= ${params.add(toClickHouseTime(range.start), 'DateTime64(3)')} AND timestamp < ${end}`;
    const at = params.add(toClickHouseTime(cut.timestamp), 'DateTime64(3)');
    return `org_id = ${org} AND timestamp >= ${at} AND (timestamp, ${idColumn}) > (${at}, ${params.add(cut.id, 'UUID')}) AND timestamp < ${end}`;
  };
  const address = params.add(ADDRESS_PATTERN, 'String');
  // One row per artifact: what read it (from its event; an artifact without one failed to parse), and its shape when unrecognised.
  const lines = `
    SELECT a.id AS id, a.source AS source, e.parsed AS parsed, e.categorised AS categorised, e.has_source_ip AS has_source_ip, e.generic AS generic,
           if(e.parsed, e.tag_kind, 'unparsed') AS tag_kind, e.tag AS tag,
           -- A source.ip was read from the line: only the others are searched for an address (if() skips the pattern for them).
           if(e.has_source_ip, 1, match(substring(a.raw, 1, ${ADDRESS_SCAN_BYTES}), ${address})) AS has_address,
           NOT e.categorised AS unrecognised,
           if(unrecognised, ${maskedShape(`if(e.message != '', e.message, a.raw)`, params)}, '') AS shape
    FROM (SELECT id, source, raw FROM artifacts WHERE ${inRange('id')}) AS a
    LEFT ANY JOIN (
      SELECT artifact_id, 1 AS parsed, notEmpty(f_event_category) AS categorised, notEmpty(f_source_ip) AS has_source_ip,
             ${firstValue('cairn.decoder', params)} AS decoder, ${firstValue('observer.vendor', params)} AS vendor, ${firstValue('observer.product', params)} AS product,
             f_process_name[1] AS program, decoder = 'generic' AS generic,
             multiIf(decoder NOT IN ('', 'generic'), 'device', vendor != '', 'vendor', parser = 'syslog' AND program != '', 'program', 'parser') AS tag_kind,
             multiIf(tag_kind = 'device', decoder, tag_kind = 'vendor', trimBoth(concat(vendor, ' ', product)), tag_kind = 'program', program, parser) AS tag,
             if(categorised, '', ${firstValue('message', params)}) AS message
      FROM events WHERE ${inRange('artifact_id')}
    ) AS e ON e.artifact_id = a.id`;
  const byShape = `
    SELECT source, tag_kind, tag, unrecognised, shape, count() AS n_lines, countIf(parsed) AS n_events, countIf(categorised) AS n_categorised,
           countIf(has_address) AS n_address_lines, countIf(has_address AND has_source_ip) AS n_address_lines_with_source_ip, countIf(generic) AS n_generic,
           toString(max(id)) AS example
    FROM (${lines}) GROUP BY source, tag_kind, tag, unrecognised, shape`;
  // Per tag, its counts and its most frequent shapes (the report's most frequent are among them).
  const rows = (await queryRows(
    store,
    `SELECT source, tag_kind, tag, ${COUNT_KEYS.map((k) => `sum(n_${k}) AS ${k}`).join(', ')},
            arraySlice(arraySort(s -> (-toInt64(s.1), s.2), groupArrayIf((n_lines, shape, example), unrecognised)), 1, ${TOP_SHAPES}) AS shapes
     FROM (${byShape}) GROUP BY source, tag_kind, tag ORDER BY source, lines DESC, tag_kind, tag`,
    params,
    { join_use_nulls: 0 },
  )) as (Record<string, unknown> & { source: string; tag_kind: TagKind; tag: string; shapes: [string | number, string, string][] })[];

  const sources = new Map<string, { counts: RawCounts[]; tags: TagCoverage[] }>();
  const shapes: MessageShape[] = [];
  for (const row of rows) {
    const counts = Object.fromEntries(COUNT_KEYS.map((k) => [k, num(row[k])])) as RawCounts;
    const entry = sources.get(row.source) ?? { counts: [], tags: [] };
    sources.set(row.source, entry);
    entry.counts.push(counts);
    entry.tags.push({ tag_kind: row.tag_kind, tag: row.tag, ...withShares(counts) });
    for (const [count, shape, example] of row.shapes) shapes.push({ shape, count: num(count), source: row.source, tag_kind: row.tag_kind, tag: row.tag, example_artifact_id: example });
  }
  const perSource = [...sources].map(([source, { counts, tags }]) => ({ source, ...withShares(sum(counts)), tags }));
  perSource.sort((a, b) => b.lines - a.lines || a.source.localeCompare(b.source));
  const totals = withShares(sum([...sources.values()].flatMap((s) => s.counts)));
  return {
    start: range.start,
    end: range.end,
    scanned: { artifacts: totals.lines, limit: maxArtifacts, truncated: cut !== null, start: cut?.timestamp ?? range.start },
    totals,
    sources: perSource,
    // Among equal counts in the order of their text, as each tag's shapes were cut in SQL.
    unrecognised_shapes: shapes.sort((a, b) => b.count - a.count || byText(a.shape, b.shape) || byText(a.source, b.source) || byText(a.tag, b.tag)).slice(0, TOP_SHAPES),
  };
}
