// Plain and CSV block lists, as the common address and domain lists publish
// them: one indicator per line (comments after #, ; or //, and anything after
// the first blank, as in "192.0.2.0/24 ; SBL123"), or one column of a CSV.
// Each run reads the whole list (a snapshot): what it no longer lists is
// withdrawn. The type of each value is judged by its shape.
import { parse } from 'csv-parse/sync';
import { detectValue } from '../indicator.js';
import { describeUrl } from '../feeds.js';
import { fetchFeed } from './fetch.js';
import { FeedError, type FeedClaim, type FeedPage, type FeedRead, type FeedRequest } from './types.js';

/** Claims are handed on in pages of this many, so a long list is stored (and its progress counted) as it is read. */
const PAGE = 10_000;

function claimOf(line: number, text: string): FeedClaim | { ref: string; reason: string } {
  const found = detectValue(text);
  const ref = `line ${line}`;
  if (!found) return { ref, reason: `"${text.slice(0, 100)}" is not an address, network, domain, URL, hash or email address` };
  return { ref: found.value, type: found.type, value: found.value, matchable: true, note: '', labels: [] };
}

/** The values of a plain list with their line numbers; comments and blank lines skipped. */
function plainValues(text: string): [number, string][] {
  const values: [number, string][] = [];
  text.split(/\r?\n/).forEach((raw, i) => {
    // A comment fills a line (#, ; or //) or follows a blank (# or ;); a URL's // is not one.
    const value = /^\s*(#|;|\/\/)/.test(raw) ? '' : (raw.replace(/\s[#;].*$/, '').trim().split(/\s+/)[0] ?? '');
    if (value) values.push([i + 1, value]);
  });
  return values;
}

function csvValues(text: string, settings: { column: number | string; header: boolean; delimiter: string }, url: string): [number, string][] {
  let rows: string[][];
  try {
    rows = parse(text, { delimiter: settings.delimiter, comment: '#', relax_column_count: true, skip_empty_lines: true, trim: true, bom: true }) as string[][];
  } catch (err) {
    throw new FeedError(`${describeUrl(url)} is not CSV: ${(err as Error).message}`);
  }
  let index = typeof settings.column === 'number' ? settings.column - 1 : -1;
  if (settings.header) {
    const header = rows.shift() ?? [];
    if (typeof settings.column === 'string') index = header.findIndex((h) => h.toLowerCase() === String(settings.column).toLowerCase());
    if (index < 0) throw new FeedError(`${describeUrl(url)} has no column "${settings.column}" (header: ${header.join(', ').slice(0, 200)})`);
  }
  return rows.flatMap((row, i): [number, string][] => (row[index] ? [[i + (settings.header ? 2 : 1), row[index]!]] : []));
}

export function readBlockList(request: FeedRequest): FeedRead {
  async function* pages(): AsyncGenerator<FeedPage> {
    const response = await fetchFeed(request.client, request.url, request.feed.settings, 'text/plain, text/csv, */*');
    const text = response.text();
    const values = request.feed.kind === 'csv' ? csvValues(text, request.feed.settings, request.url) : plainValues(text);
    for (let i = 0; i < values.length || i === 0; i += PAGE) {
      const page: FeedPage = { fetched: 0, claims: [], withdrawn: [], rejected: [] };
      for (const [line, value] of values.slice(i, i + PAGE)) {
        page.fetched++;
        const claim = claimOf(line, value);
        if ('type' in claim) page.claims.push(claim);
        else page.rejected.push(claim);
      }
      yield page;
    }
  }
  return { pages: pages(), snapshot: true };
}
