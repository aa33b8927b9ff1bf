// `cairn migrate`: apply the ClickHouse migrations and exit.
import { Command } from 'commander';
import { openStore } from '../../clickhouse/client.js';
import { migrate } from '../../clickhouse/migrate.js';
import { loadConfig } from '../../config/env.js';

export function migrateCommand(): Command {
  return new Command('migrate').description('apply ClickHouse migrations and exit (every process also does this at start)').action(async () => {
    const store = await openStore(loadConfig());
    try {
      const applied = await migrate(store);
      console.log(applied.length ? `applied: ${applied.map((m) => m.id).join(', ')}` : 'schema is up to date');
    } finally {
      await store.close();
    }
  });
}
