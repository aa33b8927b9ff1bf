// `cairn sql` as users run it: a separate process on a data dir where
// `cairn migrate` ran, reading the views of migration 017.
import { randomUUID } from 'node:crypto';
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { parse } from 'csv-parse/sync';
import { beforeAll, describe, expect, it } from 'vitest';
import { openStore } from '../clickhouse/client.js';
import { deleteLeadRule, saveLeadRule, type LeadRule } from '../clickhouse/tables/lead-rules.js';
import { loadConfig } from '../config/env.js';

const BIN = path.join(import.meta.dirname, '..', 'bin', 'cairn.mjs');

function cairn(args: string[], dataDir: string) {
  return spawnSync(process.execPath, [BIN, ...args], { env: { ...process.env, CAIRN_LOG_LEVEL: 'warn', CAIRN_DATA_DIR: dataDir }, encoding: 'utf8', timeout: 60_000 });
}

function rule(name: string, description: string, tags: string[]): LeadRule {
  const now = new Date().toISOString();
  return { id: randomUUID(), org_id: 'default', name, description, enabled: true, conditions: { pattern: 'Failed password' }, severity: 'high', tags, origin: null, created_at: now, updated_at: now };
}

/** Values a CSV must quote (comma, quotes, a line break) and one too long for a table cell. */
const RULES = [rule('SSH, "brute" force', 'x'.repeat(100), ['T1110']), rule('DNS tunnel', 'line one\nline two', [])];
const QUERY = 'SELECT name, severity, enabled, tags, description FROM v_lead_rules ORDER BY name';

let dataDir: string;

/** The data dir opened in this process for the test's work, then closed again, as `cairn sql` needs. */
async function withStore(work: (store: Awaited<ReturnType<typeof openStore>>) => Promise<void>): Promise<void> {
  const store = await openStore(loadConfig({ CAIRN_DATA_DIR: dataDir }));
  try {
    await work(store);
  } finally {
    await store.close();
  }
}

function expectOneLine(stderr: string, pattern: RegExp): void {
  expect(stderr.split('\n').filter(Boolean), stderr).toHaveLength(1);
  expect(stderr).toMatch(pattern);
  expect(stderr).not.toMatch(/\s+at \S+ \(/); // no stack
}

describe('cairn sql', () => {
  beforeAll(async () => {
    dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'cairn-sql-'));
    const migrated = cairn(['migrate'], dataDir);
    expect(migrated.status, migrated.stderr).toBe(0);
    expect(migrated.stdout).toContain('017_read_views');
    await withStore(async (store) => {
      for (const r of RULES) await saveLeadRule(store, r);
      const gone = rule('Gone', 'deleted', []);
      await saveLeadRule(store, gone);
      await deleteLeadRule(store, gone);
    });
  });

  it('prints an aligned table, cutting long values with a note, and counts the rows', () => {
    const result = cairn(['sql', QUERY], dataDir);
    expect(result.status, result.stderr).toBe(0);
    expect(result.stderr).toBe('');
    const [header, rule, ...rest] = result.stdout.trimEnd().split('\n');
    expect(header).toMatch(/^name {2,}severity {2}enabled {2}tags {2,}description$/);
    expect(rule).toMatch(/^-+( {2}-+){4}$/);
    // Every column starts where its header does.
    const starts = [...header!.matchAll(/\S+/g)].map((m) => m.index);
    for (const line of rest.slice(0, 2)) for (const start of starts.slice(1)) expect(line[start! - 1], line).toBe(' ');
    expect(rest[0]).toMatch(/^DNS tunnel +high +true +\[\] +line one\\nline two$/);
    expect(rest[1]).toMatch(/^SSH, "brute" force +high +true +\["T1110"\] +x{59}…$/);
    expect(rest.slice(2)).toEqual(['(2 rows)', '(values longer than 60 characters are cut with …; --format json or csv prints them whole)']);
  });

  it('prints JSON lines, one object per row, values whole', () => {
    const result = cairn(['sql', QUERY, '--format', 'json'], dataDir);
    expect(result.status, result.stderr).toBe(0);
    const rows = result.stdout.trimEnd().split('\n').map((line) => JSON.parse(line) as unknown);
    expect(rows).toEqual(
      [...RULES].sort((a, b) => (a.name < b.name ? -1 : 1)).map((r) => ({ name: r.name, severity: 'high', enabled: true, tags: r.tags, description: r.description })),
    );
  });

  it('prints CSV (RFC 4180) that parses back to the same values, commas, quotes and line breaks included', () => {
    const result = cairn(['sql', QUERY, '--format', 'csv'], dataDir);
    expect(result.status, result.stderr).toBe(0);
    expect(result.stdout).toMatch(/^name,severity,enabled,tags,description\r\n/);
    const records = parse(result.stdout, { columns: true }) as Record<string, string>[];
    expect(records).toEqual([
      { name: 'DNS tunnel', severity: 'high', enabled: 'true', tags: '[]', description: 'line one\nline two' },
      { name: 'SSH, "brute" force', severity: 'high', enabled: 'true', tags: '["T1110"]', description: 'x'.repeat(100) },
    ]);
  });

  it('prints at most --limit rows and says that more were cut', () => {
    const table = cairn(['sql', 'SELECT number FROM system.numbers LIMIT 5000', '--limit', '3'], dataDir);
    expect(table.status, table.stderr).toBe(0);
    expect(table.stdout).toBe('number\n------\n     0\n     1\n     2\n(3 rows; more were cut at --limit 3)\n');
    const json = cairn(['sql', 'SELECT number FROM system.numbers LIMIT 5000', '--limit', '2', '--format', 'json'], dataDir);
    expect(json.stdout).toBe('{"number":"0"}\n{"number":"1"}\n');
    expect(json.stderr).toBe('cairn: printed the first 2 rows; more were cut (--limit)\n');
    // Within the limit, nothing is said.
    expect(cairn(['sql', 'SHOW TABLES LIKE \'v_incident%\'', '--format', 'csv'], dataDir)).toMatchObject({ status: 0, stdout: 'name\r\nv_incident_status_changes\r\nv_incidents\r\n', stderr: '' });
  });

  it('refuses anything but a read as a usage error (exit code 2), and the data stays as it was', () => {
    const writes = [
      "INSERT INTO lead_rules (id, name) VALUES (generateUUIDv4(), 'x')",
      'ALTER TABLE lead_rules DELETE WHERE 1',
      'DROP TABLE lead_rules',
      'TRUNCATE TABLE lead_rules',
      'SELECT 1; DROP TABLE lead_rules',
      "SELECT * FROM v_lead_rules INTO OUTFILE '/tmp/cairn-sql-out.csv'",
      '/* a comment first */ DROP VIEW v_incidents',
    ];
    for (const query of writes) {
      const result = cairn(['sql', query], dataDir);
      expect(result.status, query).toBe(2);
      const [first, ...rest] = result.stderr.split('\n');
      expect(first, query).toMatch(/^cairn: (only read-only queries run here|one query at a time|INTO OUTFILE is refused)/);
      expect(rest.join('\n'), query).toMatch(/Usage: cairn sql/);
    }
    expect(cairn(['sql', 'DELETE FROM lead_rules WHERE 1'], dataDir).stderr).toMatch(/^cairn: only read-only queries run here \(SELECT, WITH, SHOW, DESCRIBE, EXPLAIN\), not DELETE\n/);
    const count = cairn(['sql', 'SELECT count() AS rules FROM v_lead_rules', '--format', 'csv'], dataDir);
    expect(count.stdout).toBe('rules\r\n2\r\n');
  });

  it('runs the query with readonly = 1, so the engine refuses what a SELECT could still do', () => {
    // The file() table function reads (and could write) files of the machine: read-only mode refuses it.
    const result = cairn(['sql', "SELECT * FROM file('/etc/hostname', 'LineAsString')"], dataDir);
    expect(result.status).toBe(1);
    expectOneLine(result.stderr, /^cairn: query failed: .*readonly mode/);
  });

  it('answers a query ClickHouse refuses with one line and exit code 1', () => {
    for (const query of ['SELECT * FROM no_such_table', 'SELECT 1 FRM v_incidents']) {
      const result = cairn(['sql', query], dataDir);
      expect(result.status, query).toBe(1);
      expectOneLine(result.stderr, /^cairn: query failed: /);
      expect(result.stderr, query).not.toContain('readonly = 1'); // the settings added for the user are not theirs to read about
    }
  });

  it('says clearly when there is no store, or when another process holds it', async () => {
    const empty = fs.mkdtempSync(path.join(os.tmpdir(), 'cairn-sql-empty-'));
    const none = cairn(['sql', 'SELECT 1'], empty);
    expect(none.status).toBe(1);
    expectOneLine(none.stderr, /^cairn: no embedded store in .*: run `cairn migrate` or `cairn start` first/);
    expect(fs.readdirSync(empty)).toEqual([]); // nothing created

    // This process holds the engine, as `cairn start` would, but serves no API and the data dir has no secret to
    // mint a token with: `cairn sql` says who holds the store and what it needs to go through it
    // (test/cli-sql-live.test.ts runs it beside a real `cairn start`).
    await withStore(async () => {
      const held = cairn(['sql', 'SELECT 1'], dataDir);
      expect(held.status).toBe(1);
      expectOneLine(held.stderr, new RegExp(`^cairn: the embedded store in .* is in use by process ${process.pid} \\(\`cairn start\`\\?\\) and no token: pass --token`));
    });
  });
});
