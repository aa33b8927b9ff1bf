import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts', 'api/**/*.test.ts', 'ingest/**/*.test.ts', 'threatintel/**/*.test.ts', 'pipeline/**/*.test.ts', 'lib/**/*.test.ts', 'clickhouse/**/*.test.ts', 'topics/**/*.test.ts', 'query/**/*.test.ts', 'cli/**/*.test.ts', 'identity/**/*.test.ts', 'scripts/**/*.test.ts'],
    globalSetup: ['test/global-setup.ts'],
    // chdb crashes in worker threads; forks give each test file its own
    // process and so its own embedded ClickHouse data directory.
    pool: 'forks',
    testTimeout: 60_000,
    hookTimeout: 120_000,
    env: { TZ: 'UTC', CAIRN_LOG_LEVEL: 'warn' },
  },
});
