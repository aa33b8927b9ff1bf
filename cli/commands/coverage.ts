// `cairn coverage [--start] [--end] [--json]`: the user's own blind spots
// through a running cairn's API (GET /v1/parser/coverage): per source and
// tag, how much of the stored lines cairn understood, and the most frequent
// shapes of the lines it did not. docs/parsing.md, "Your own blind spots".
import { Command } from 'commander';
import type { CoverageCounts, CoverageReport } from '../../reports/coverage.js';
import { apiTarget, unreachable, withApiTargetOptions, type ApiTargetOptions } from '../api-target.js';

interface CoverageOptions extends ApiTargetOptions {
  start?: string;
  end?: string;
  json?: boolean;
}

/** Shapes and tags longer than this are cut in the table; --json prints them whole. */
const CELL_WIDTH = 80;

async function fetchCoverage(url: string, token: string, options: CoverageOptions): Promise<CoverageReport> {
  const target = new URL('/api/v1/parser/coverage', url);
  if (options.start) target.searchParams.set('start', options.start);
  if (options.end) target.searchParams.set('end', options.end);
  let res: Response;
  try {
    res = await fetch(target, { headers: { authorization: `Bearer ${token}` } });
  } catch (err) {
    throw unreachable(url, err);
  }
  const payload = (await res.json().catch(() => null)) as { message?: string; data?: CoverageReport } | null;
  if (res.status !== 200 || !payload?.data) throw new Error(`GET /api/v1/parser/coverage answered ${res.status}: ${payload?.message ?? 'no message'}`);
  return payload.data;
}

const percent = (share: number | null): string => (share === null ? '-' : `${(share * 100).toFixed(1)}%`);
const cut = (text: string): string => {
  const oneLine = text.replace(/\r/g, '\\r').replace(/\n/g, '\\n').replace(/\t/g, '\\t');
  return oneLine.length <= CELL_WIDTH ? oneLine : `${oneLine.slice(0, CELL_WIDTH - 1)}…`;
};

/** Rows of cells as aligned columns; the columns named in `right` are numbers, aligned right. */
function aligned(header: string[], rows: string[][], right: ReadonlySet<number>): string[] {
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i]!.length)));
  const line = (cells: string[]) => cells.map((c, i) => (right.has(i) ? c.padStart(widths[i]!) : c.padEnd(widths[i]!))).join('  ').trimEnd();
  return [line(header), widths.map((w) => '-'.repeat(w)).join('  '), ...rows.map(line)];
}

function countCells(c: CoverageCounts): string[] {
  return [
    String(c.lines),
    String(c.failures),
    `${c.categorised} ${percent(c.categorised_share)}`,
    `${c.address_lines_with_source_ip}/${c.address_lines} ${percent(c.source_ip_share)}`,
    `${c.generic} ${percent(c.generic_share)}`,
  ];
}

function printReport(report: CoverageReport): void {
  const { scanned } = report;
  const out = [`Parser coverage from ${report.start} to ${report.end}: ${scanned.artifacts} line(s)`];
  if (scanned.truncated) out.push(`(the range holds more than ${scanned.limit} lines: only the newest ${scanned.limit}, after ${scanned.start}, were read)`);
  out.push('');
  const rows: string[][] = [];
  for (const source of report.sources) {
    rows.push([source.source, '(all)', ...countCells(source)]);
    for (const tag of source.tags) rows.push(['', cut(tag.tag_kind === 'unparsed' ? 'unparsed (parse failures)' : `${tag.tag_kind} ${tag.tag}`), ...countCells(tag)]);
  }
  rows.push(['total', '', ...countCells(report.totals)]);
  out.push(...aligned(['SOURCE', 'TAG', 'LINES', 'FAILED', 'CATEGORISED', 'SOURCE.IP/ADDRESS LINES', 'GENERIC'], rows, new Set([2, 3, 4, 5, 6])));
  out.push('', 'CATEGORISED and GENERIC are shares of the events (parsed lines); SOURCE.IP of the lines holding an address.');
  if (report.unrecognised_shapes.length > 0) {
    out.push('', 'Most frequent unrecognised shapes (no event.category, or not parsed):', '');
    const shapes = report.unrecognised_shapes.map((s) => [String(s.count), s.source, cut(s.tag_kind === 'unparsed' ? 'unparsed' : `${s.tag_kind} ${s.tag}`), cut(s.shape), s.example_artifact_id]);
    out.push(...aligned(['COUNT', 'SOURCE', 'TAG', 'SHAPE', 'EXAMPLE ARTIFACT'], shapes, new Set([0])));
  }
  process.stdout.write(`${out.join('\n')}\n`);
}

export function coverageCommand(): Command {
  const command = new Command('coverage')
    .description("what cairn did not understand in your own logs: per source and program or vendor, parsed lines, event.category, source.ip, generic reads and parse failures, and the most frequent unrecognised message shapes, through a running cairn's API")
    .option('--start <time>', 'ISO 8601 start of the range (default 24 hours before --end)')
    .option('--end <time>', 'ISO 8601 end of the range (default now)')
    .option('--json', 'print the report as JSON (the API\'s data) instead of tables');
  return withApiTargetOptions(command, 'signals:read').action(async (options: CoverageOptions) => {
    const { url, token } = await apiTarget(options, { subject: 'cairn-coverage', permissions: ['signals:read'] });
    const report = await fetchCoverage(url, token, options);
    if (options.json) process.stdout.write(`${JSON.stringify(report, null, 2)}\n`);
    else printReport(report);
  });
}
