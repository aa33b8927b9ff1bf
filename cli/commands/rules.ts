// `cairn rules import <file|dir>...`: Sigma rules into lead rules through a
// running cairn's API (POST /v1/lead-rules/import), a folder's rules sent in
// pieces below the request limit. Prints what was imported and, per skipped
// rule, why. `cairn rules backfill <id>`: a rule run over stored events
// (cli/rule-backfill.ts).
import fs from 'node:fs/promises';
import path from 'node:path';
import { Command, InvalidArgumentError } from 'commander';
import { DURATION_PATTERN, parseDuration } from '../../lib/duration.js';
import { apiTarget, unreachable, withApiTargetOptions, type ApiTargetOptions } from '../api-target.js';
import { backfillRule, describeJob } from '../rule-backfill.js';
import { packCommand } from './rules-pack.js';

interface ImportOptions extends ApiTargetOptions {
  disabled?: boolean;
  backfillDays?: number;
}

interface ImportOutcome {
  title: string;
  status: 'imported' | 'skipped';
  action: 'created' | 'updated' | null;
  reason: string | null;
}

/** The .yml and .yaml files under each path (a file is taken as given). */
async function ruleFiles(paths: string[]): Promise<string[]> {
  const files: string[] = [];
  for (const p of paths) {
    const stat = await fs.stat(p).catch((err: NodeJS.ErrnoException) => {
      throw new Error(`cannot read ${p}: ${err.code === 'ENOENT' ? 'no such file or folder' : err.message}`);
    });
    if (stat.isFile()) files.push(p);
    else {
      const entries = await fs.readdir(p, { recursive: true, withFileTypes: true });
      files.push(...entries.filter((e) => e.isFile() && /\.ya?ml$/i.test(e.name)).map((e) => path.join(e.parentPath, e.name)));
    }
  }
  return files.sort();
}

/** Files joined as YAML documents, in pieces below the API's limit; a correlation and its rules should share a file. */
async function pieces(files: string[]): Promise<string[]> {
  // The route's own limit, loaded when needed: the route module is heavier than this command's help needs.
  const { MAX_IMPORT_CHARS } = await import('../../api/routes/lead-rules.js');
  const out: string[] = [];
  let current = '';
  for (const file of files) {
    const text = (await fs.readFile(file, 'utf8')).trim();
    if (text.length > MAX_IMPORT_CHARS) throw new Error(`${file} is larger than ${MAX_IMPORT_CHARS} characters`);
    if (current && current.length + text.length + 5 > MAX_IMPORT_CHARS) {
      out.push(current);
      current = '';
    }
    current = current ? `${current}\n---\n${text}` : text;
  }
  if (current) out.push(current);
  return out;
}

async function post(url: string, token: string, rules: string, enabled: boolean | undefined, backfillDays: number | undefined): Promise<ImportOutcome[]> {
  let res: Response;
  try {
    res = await fetch(new URL('/api/v1/lead-rules/import', url), {
      method: 'POST',
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
      body: JSON.stringify({ rules, ...(enabled === undefined ? {} : { enabled }), ...(backfillDays === undefined ? {} : { backfill_days: backfillDays }) }),
    });
  } catch (err) {
    throw unreachable(url, err);
  }
  const payload = (await res.json().catch(() => null)) as { message?: string; data?: { results: ImportOutcome[] } } | null;
  if (res.status !== 200 || !payload?.data) throw new Error(`POST /api/v1/lead-rules/import answered ${res.status}: ${payload?.message ?? 'no message'}`);
  return payload.data.results;
}

function importCommand(): Command {
  const command = new Command('import')
    .description("import Sigma rules (files, or folders of .yml files) as lead rules through a running cairn's API")
    .argument('<paths...>', 'Sigma rule files or folders')
    .option('--disabled', 'create new rules disabled (try them with POST /v1/lead-rules/test first)')
    .option('--backfill-days <n>', 'run each rule the import enables over the stored events of the last n days (default CAIRN_RULES_BACKFILL_DAYS on the server)', (v) => wholeNumber(v, '--backfill-days'));
  return withApiTargetOptions(command, 'signals:manage').action(async (paths: string[], options: ImportOptions) => {
      const files = await ruleFiles(paths);
      if (files.length === 0) throw new Error(`no .yml or .yaml files under ${paths.join(', ')}`);
      const { url, token } = await apiTarget(options, { subject: 'cairn-rules', permissions: ['signals:manage'] });
      const results: ImportOutcome[] = [];
      const parts = await pieces(files);
      for (const [i, part] of parts.entries()) {
        results.push(...(await post(url, token, part, options.disabled ? false : undefined, options.backfillDays)));
        if (parts.length > 1) process.stderr.write(`  ${i + 1}/${parts.length} pieces sent\n`);
      }
      const count = (f: (r: ImportOutcome) => boolean) => results.filter(f).length;
      console.log(`${files.length} file(s), ${results.length} rule(s): ${count((r) => r.action === 'created')} created, ${count((r) => r.action === 'updated')} updated, ${count((r) => r.status === 'skipped')} skipped`);
      for (const r of results.filter((x) => x.status === 'skipped')) console.log(`  skipped "${r.title}": ${r.reason}`);
    });
}

function wholeNumber(value: string, option: string): number {
  if (!/^\d+$/.test(value)) throw new InvalidArgumentError(`${option} must be a whole number`);
  return Number(value);
}

interface BackfillOptions extends ApiTargetOptions {
  since: string;
  start?: string;
  end?: string;
  wait: boolean;
}

function isoTime(value: string): string {
  const ms = Date.parse(value);
  if (Number.isNaN(ms)) throw new InvalidArgumentError('must be an ISO 8601 time, e.g. 2026-01-02T03:04:05Z');
  return new Date(ms).toISOString();
}

function backfillCommand(): Command {
  const command = new Command('backfill')
    .description("run a lead rule over stored events through a running cairn's API, raising what it would have raised at ingest (docs/backfill.md)")
    .argument('<rule-id>', 'the lead rule')
    .option('--since <duration>', 'from this long ago (event time) until now or --end, e.g. 30d, 12h', (v) => {
      if (!DURATION_PATTERN.test(v)) throw new InvalidArgumentError('must be a duration such as 30d, 12h or 90m');
      return v;
    }, '30d')
    .option('--start <time>', 'from this event time instead (ISO 8601)', isoTime)
    .option('--end <time>', 'until this event time (ISO 8601, exclusive); default now', isoTime)
    .option('--no-wait', 'queue the job, print its id and return');
  return withApiTargetOptions(command, 'signals:manage').action(async (ruleId: string, options: BackfillOptions) => {
    const target = await apiTarget(options, { subject: 'cairn-rules', permissions: ['signals:manage', 'signals:read'] });
    const start = options.start ?? new Date(Date.now() - parseDuration(options.since)).toISOString();
    const job = await backfillRule(target, { ruleId, start, end: options.end, wait: options.wait, progress: true });
    console.log(describeJob(job));
    if (job.status === 'failed') throw new Error(`the backfill failed: ${job.error}`);
  });
}

export function rulesCommand(): Command {
  return new Command('rules')
    .description('lead rules: import Sigma rules, the shipped rule pack, backfill a rule over history')
    .addCommand(importCommand())
    .addCommand(packCommand())
    .addCommand(backfillCommand());
}
