// Several connections to the one embedded engine, behind the one client.
// chdb runs one statement at a time per connection; a process may open more
// connections to its data directory, and statements on different
// connections run side by side (except those with query parameters, which
// chdb-node serializes process-wide: its parameter state is not isolated per
// connection). So the store stage's inserts need not wait behind the
// analysis stage's, nor either behind a search, as against a server, where
// each request has a socket of its own. Parameters are written into the
// statement where they can be (inline-params.ts), so that statements with
// them run side by side too.
import type { Readable } from 'node:stream';
import type { Connection } from 'chdb/connection';
import { inlineQueryParams } from './inline-params.js';

type EmbeddedConnection = Connection<Readable>;

/** The call's statement with its parameters written in, when all of them can be; else the call as it was. */
function withInlineParams<P extends { query: string; query_params?: Record<string, unknown> }>(params: P): P {
  if (!params.query_params || Object.keys(params.query_params).length === 0) return params;
  const query = inlineQueryParams(params.query, params.query_params);
  return query === null ? params : { ...params, query, query_params: undefined };
}

/** A connection that hands each call to whichever of `connections` has the fewest calls under way. */
export function pooledConnection(connections: EmbeddedConnection[]): EmbeddedConnection {
  if (connections.length === 0) throw new Error('a pool needs at least one connection');
  const busy = connections.map(() => 0);
  let next = 0;
  async function onLeastBusy<T>(call: (connection: EmbeddedConnection) => Promise<T>): Promise<T> {
    // Among the least busy, take turns, so that idle connections are all used.
    let chosen = -1;
    for (let k = 0; k < connections.length; k++) {
      const i = (next + k) % connections.length;
      if (chosen === -1 || busy[i]! < busy[chosen]!) chosen = i;
    }
    next = (chosen + 1) % connections.length;
    busy[chosen]!++;
    try {
      return await call(connections[chosen]!);
    } finally {
      busy[chosen]!--;
    }
  }
  return {
    ping: (params) => onLeastBusy((c) => c.ping(params)),
    query: (params) => onLeastBusy((c) => c.query(withInlineParams(params))),
    insert: (params) => onLeastBusy((c) => c.insert(params)),
    command: (params) => onLeastBusy((c) => c.command(withInlineParams(params))),
    exec: (params) => onLeastBusy((c) => c.exec(withInlineParams(params))),
    async close() {
      await Promise.all(connections.map((c) => c.close()));
    },
  };
}
