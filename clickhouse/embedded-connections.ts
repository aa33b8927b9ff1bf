// Several connections to the one embedded engine, behind the one client.
// chdb runs one statement at a time per connection; a process may open more
// connections to its data directory, and statements on different
// connections run side by side (except those with query parameters, which
// chdb-node serializes process-wide: its parameter state is not isolated per
// connection). So the store stage's inserts need not wait behind the
// analysis stage's, nor either behind a search, as against a server, where
// each request has a socket of its own.
import type { Readable } from 'node:stream';
import type { Connection } from 'chdb/connection';

type EmbeddedConnection = Connection<Readable>;

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
    query: (params) => onLeastBusy((c) => c.query(params)),
    insert: (params) => onLeastBusy((c) => c.insert(params)),
    command: (params) => onLeastBusy((c) => c.command(params)),
    exec: (params) => onLeastBusy((c) => c.exec(params)),
    async close() {
      await Promise.all(connections.map((c) => c.close()));
    },
  };
}
