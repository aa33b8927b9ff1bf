import { describe, expect, it } from 'vitest';
import type { Connection } from 'chdb/connection';
import type { Readable } from 'node:stream';
import { pooledConnection } from './embedded-connections.js';

/** A connection that records which call it took and answers when the test releases it. */
function heldConnection(name: string, taken: string[], releases: (() => void)[]): Connection<Readable> {
  const answer = (what: string) => () => {
    taken.push(`${name}:${what}`);
    return new Promise<never>((resolve) => releases.push(() => resolve(undefined as never)));
  };
  return {
    ping: answer('ping'),
    query: answer('query'),
    insert: answer('insert'),
    command: answer('command'),
    exec: answer('exec'),
    close: async () => {},
  };
}

describe('pooled embedded connections', () => {
  it('hands each call to the least busy connection, taking turns among idle ones', async () => {
    const taken: string[] = [];
    const releases: (() => void)[] = [];
    const pool = pooledConnection([heldConnection('a', taken, releases), heldConnection('b', taken, releases)]);
    const first = pool.command({ query: 'INSERT 1' });
    const second = pool.query({ query: 'SELECT 1' });
    // Both busy: the third waits on the one whose turn is next.
    const third = pool.insert({ query: 'INSERT 2', values: [] } as never);
    expect(taken).toEqual(['a:command', 'b:query', 'a:insert']);
    releases.splice(0).forEach((release) => release());
    await Promise.all([first, second, third]);
    // All idle again: turns go on from where they were.
    const fourth = pool.exec({ query: 'SELECT 2' } as never);
    expect(taken.at(-1)).toBe('b:exec');
    releases.splice(0).forEach((release) => release());
    await fourth;
  });

  it('writes query parameters into the statement, and leaves those it cannot write to chdb', async () => {
    const seen: { query: string; query_params?: Record<string, unknown> }[] = [];
    const record = async (params: { query: string; query_params?: Record<string, unknown> }) => {
      seen.push(params);
      return undefined as never;
    };
    const pool = pooledConnection([{ ping: record, query: record, insert: record, command: record, exec: record, close: async () => {} } as never]);
    await pool.query({ query: 'SELECT {a:String}, {n:UInt32}', query_params: { a: "o'k", n: 7 } } as never);
    await pool.command({ query: 'SELECT {f:Float64}', query_params: { f: 0.5 } } as never);
    expect(seen).toEqual([
      { query: "SELECT 'o\\x27k', 7", query_params: undefined },
      { query: 'SELECT {f:Float64}', query_params: { f: 0.5 } },
    ]);
  });

  it('refuses an empty pool', () => {
    expect(() => pooledConnection([])).toThrow(/at least one/);
  });
});
