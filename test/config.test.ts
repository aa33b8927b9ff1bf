import { describe, expect, it } from 'vitest';
import { ConfigError, isEmbedded, loadConfig } from '../config/env.js';

describe('configuration', () => {
  it('defaults to the embedded mode with no variables set', () => {
    const config = loadConfig({});
    expect(config.port).toBe(8080);
    expect(config.orgId).toBe('default');
    expect(config.clickhouse.database).toBe('cairn');
    expect(config.kafka).toBeUndefined();
    expect(config.dataDir).toMatch(/\/data$/);
    expect(isEmbedded(config)).toBe(true);
  });

  it('serves OTLP on its own port only when CAIRN_OTLP_PORT is set, and names the variable when it is not a port', () => {
    expect(loadConfig({}).otlp.port).toBeUndefined();
    expect(loadConfig({ CAIRN_OTLP_PORT: '4318' }).otlp.port).toBe(4318);
    expect(() => loadConfig({ CAIRN_OTLP_PORT: '70000' })).toThrow(/CAIRN_OTLP_PORT:/);
  });

  it('treats empty strings as unset', () => {
    const config = loadConfig({ PORT: '', CAIRN_KAFKA_BROKERS: ' ', CAIRN_REDIS_URL: '' });
    expect(config.port).toBe(8080);
    expect(config.kafka).toBeUndefined();
    expect(config.redisUrl).toBeUndefined();
  });

  it('parses broker lists and switches to distributed mode', () => {
    const config = loadConfig({ CAIRN_KAFKA_BROKERS: 'a:9092, b:9093', CAIRN_KAFKA_PARTITIONS: '6' });
    expect(config.kafka).toEqual({ brokers: ['a:9092', 'b:9093'], partitions: 6, clientId: 'cairn', topicPrefix: '', sessionTimeoutMs: 30_000 });
    expect(isEmbedded(config)).toBe(false);
    expect(loadConfig({ CAIRN_KAFKA_BROKERS: 'a:9092', CAIRN_KAFKA_SESSION_TIMEOUT_MS: '6000' }).kafka?.sessionTimeoutMs).toBe(6000);
  });

  it.each([
    [{ PORT: 'eighty' }, 'PORT'],
    [{ PORT: '70000' }, 'PORT'],
    [{ CAIRN_KAFKA_BROKERS: 'localhost' }, 'CAIRN_KAFKA_BROKERS'],
    [{ CAIRN_KAFKA_SESSION_TIMEOUT_MS: '1000' }, 'CAIRN_KAFKA_SESSION_TIMEOUT_MS'],
    [{ CAIRN_REDIS_URL: 'localhost:6379' }, 'CAIRN_REDIS_URL'],
    [{ CAIRN_CLICKHOUSE_URL: 'not a url' }, 'CAIRN_CLICKHOUSE_URL'],
    [{ CAIRN_JWT_SECRET: 'short' }, 'CAIRN_JWT_SECRET'],
    [{ CAIRN_MASTER_KEY: 'abcd' }, 'CAIRN_MASTER_KEY'],
    [{ CAIRN_VALIDATE_RESPONSES: 'maybe' }, 'CAIRN_VALIDATE_RESPONSES'],
    [{ CAIRN_CLICKHOUSE_DATABASE: 'x; DROP TABLE' }, 'CAIRN_CLICKHOUSE_DATABASE'],
  ])('refuses %o naming %s', (env, variable) => {
    expect(() => loadConfig(env)).toThrow(ConfigError);
    expect(() => loadConfig(env)).toThrow(new RegExp(`${variable}:`));
  });

  it('parses booleans explicitly, so "false" is false', () => {
    expect(loadConfig({ CAIRN_VALIDATE_RESPONSES: 'false' }).validateResponses).toBe(false);
    expect(loadConfig({ CAIRN_VALIDATE_RESPONSES: 'true', NODE_ENV: 'production' }).validateResponses).toBe(true);
    expect(loadConfig({ NODE_ENV: 'production' }).validateResponses).toBe(false);
  });

  it('accepts a master key as hex or base64 of 32 bytes', () => {
    expect(loadConfig({ CAIRN_MASTER_KEY: 'ab'.repeat(32) }).masterKey).toHaveLength(32);
    expect(loadConfig({ CAIRN_MASTER_KEY: Buffer.alloc(32, 7).toString('base64') }).masterKey).toHaveLength(32);
  });
});
