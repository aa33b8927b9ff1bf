// Classifies ClickHouse failures by error code, never by message text.
import { ClickHouseError } from '@clickhouse/client';

/** Server-side conditions that pass: overload, memory, timeouts, replicas catching up. */
const TRANSIENT_CODES = new Set([
  '159', // TIMEOUT_EXCEEDED
  '164', // READONLY (replica in read-only mode during recovery)
  '202', // TOO_MANY_SIMULTANEOUS_QUERIES
  '203', // NO_FREE_CONNECTION
  '209', // SOCKET_TIMEOUT
  '210', // NETWORK_ERROR
  '241', // MEMORY_LIMIT_EXCEEDED
  '242', // TABLE_IS_READ_ONLY
  '252', // TOO_MANY_PARTS
  '285', // TOO_FEW_LIVE_REPLICAS
  '319', // UNKNOWN_STATUS_OF_INSERT
  '425', // SYSTEM_ERROR
  '999', // KEEPER_EXCEPTION
]);

export function isTransientClickHouseError(err: unknown): boolean {
  return err instanceof ClickHouseError && TRANSIENT_CODES.has(err.code);
}
