// Applies clickhouse/migrations/NNN_name.sql in order, once each, recording
// them in `schema_migrations`. The DDL itself is re-runnable (IF NOT EXISTS),
// so two processes starting together, or a crash between a file and its
// record, do no harm.
import fs from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { ClickHouseSettings } from '@clickhouse/client';
import type { Store } from './client.js';

export const MIGRATIONS_DIR = path.join(path.dirname(fileURLToPath(import.meta.url)), 'migrations');

const FILE_PATTERN = /^(\d{3})_([a-z0-9_]+)\.sql$/;

/** Settings our DDL needs (the text index on artifacts). */
const DDL_SETTINGS: ClickHouseSettings = { allow_experimental_full_text_index: 1 };

export interface Migration {
  /** The file name without .sql, e.g. 001_lead_rules */
  id: string;
  version: number;
  name: string;
  file: string;
}

export async function listMigrations(dir = MIGRATIONS_DIR): Promise<Migration[]> {
  const files = (await fs.readdir(dir)).filter((f) => f.endsWith('.sql')).sort();
  return files.map((file) => {
    const match = FILE_PATTERN.exec(file);
    if (!match) throw new Error(`migration file "${file}" must be named NNN_name.sql`);
    return { id: file.slice(0, -'.sql'.length), version: Number(match[1]), name: match[2]!, file: path.join(dir, file) };
  });
}

/** Splits a SQL file into statements on semicolons outside quotes and comments. */
export function splitStatements(sql: string): string[] {
  const statements: string[] = [];
  let current = '';
  let quote: string | null = null;
  for (let i = 0; i < sql.length; i++) {
    const c = sql[i]!;
    if (quote) {
      current += c;
      if (c === '\\') current += sql[++i] ?? '';
      else if (c === quote) quote = null;
    } else if (c === "'" || c === '"' || c === '`') {
      quote = c;
      current += c;
    } else if (c === '-' && sql[i + 1] === '-') {
      const end = sql.indexOf('\n', i);
      i = end === -1 ? sql.length : end;
      current += '\n';
    } else if (c === ';') {
      if (current.trim()) statements.push(current.trim());
      current = '';
    } else {
      current += c;
    }
  }
  if (current.trim()) statements.push(current.trim());
  return statements;
}

export async function migrate(store: Store, dir = MIGRATIONS_DIR): Promise<Migration[]> {
  await store.command({
    query: `CREATE TABLE IF NOT EXISTS schema_migrations (
      version UInt32, name String, applied_at DateTime64(3, 'UTC') DEFAULT now64(3)
    ) ENGINE = ReplacingMergeTree ORDER BY version`,
  });
  const result = await store.query({ query: 'SELECT DISTINCT version FROM schema_migrations', format: 'JSONEachRow' });
  const applied = new Set((await result.json<{ version: number }>()).map((r) => Number(r.version)));
  const done: Migration[] = [];
  for (const migration of await listMigrations(dir)) {
    if (applied.has(migration.version)) continue;
    for (const statement of splitStatements(await fs.readFile(migration.file, 'utf8'))) {
      await store.command({ query: statement, clickhouse_settings: DDL_SETTINGS });
    }
    await store.insert({ table: 'schema_migrations', values: [{ version: migration.version, name: migration.name }], format: 'JSONEachRow' });
    done.push(migration);
  }
  return done;
}
