// Classifies ClickHouse failures by error code, never by message text.
// Only errors about the data itself (a value that does not parse or fit)
// say a message is bad; every other ClickHouse error — overload, timeouts,
// a missing table, a query we got wrong — is the store's or ours, and
// retrying (with an alert in the log) is right: dead-lettering good data for
// it would be wrong.
import { ClickHouseError } from '@clickhouse/client';

const BAD_DATA_CODES = new Set([
  '6', // CANNOT_PARSE_TEXT
  '25', // CANNOT_PARSE_ESCAPE_SEQUENCE
  '26', // CANNOT_PARSE_QUOTED_STRING
  '27', // CANNOT_PARSE_INPUT_ASSERTION_FAILED
  '38', // CANNOT_PARSE_DATE
  '41', // CANNOT_PARSE_DATETIME
  '53', // TYPE_MISMATCH
  '69', // ARGUMENT_OUT_OF_BOUND
  '70', // CANNOT_CONVERT_TYPE
  '72', // CANNOT_PARSE_NUMBER
  '117', // INCORRECT_DATA
  '131', // TOO_LARGE_STRING_SIZE
  '321', // VALUE_IS_OUT_OF_RANGE_OF_DATA_TYPE
  '349', // CANNOT_INSERT_NULL_IN_ORDINARY_COLUMN
  '376', // CANNOT_PARSE_UUID
]);

export function isBadDataClickHouseError(err: unknown): boolean {
  return err instanceof ClickHouseError && BAD_DATA_CODES.has(err.code);
}

/** Any ClickHouse error that is not about the data: retry it. */
export function isTransientClickHouseError(err: unknown): boolean {
  return err instanceof ClickHouseError && !BAD_DATA_CODES.has(err.code);
}
