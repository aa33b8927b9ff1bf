// Query parameters written into the statement as typed literals, for the
// embedded engine only. chdb-node binds {name:Type} parameters through state
// that is not isolated per connection, so it runs every statement with
// parameters one at a time in the whole process: a search waited behind the
// correlator's queries and they behind it, however many connections were
// free. A statement without parameters runs on its connection beside the
// others. A server binds parameters itself; this is never used there.
//
// Only strings, integers and flat arrays of them are written: each string
// quoted with every backslash, quote and control character escaped (what
// ClickHouse's string literals read back exactly), each value cast to the
// placeholder's type, so the statement means what the bound one meant. Any
// other value (null, a date, a map, a fraction) leaves the statement as it
// was, to be bound by chdb. (@clickhouse/client formats parameters alike for
// its HTTP transport, but does not export that formatter.)

const PLACEHOLDER = /\{([A-Za-z_][A-Za-z0-9_]*):([^{}]+)\}/g;
const INTEGER_TYPE = /^U?Int(8|16|32|64)$/;

/** Characters a quoted literal escapes: the backslash, the quote and every control character. */
const ESCAPED = /[\\'\x00-\x1f\x7f]/g;

type Scalar = string | number | bigint;

function isScalar(value: unknown): value is Scalar {
  return typeof value === 'string' || (typeof value === 'number' && Number.isSafeInteger(value)) || typeof value === 'bigint';
}

function literal(value: Scalar): string {
  if (typeof value !== 'string') return String(value);
  return `'${value.replace(ESCAPED, (c) => `\\x${c.charCodeAt(0).toString(16).padStart(2, '0')}`)}'`;
}

/** The literal for one placeholder, or null when the value is left for chdb to bind. */
function typedLiteral(value: unknown, type: string): string | null {
  const trimmed = type.trim();
  if (trimmed === 'Identifier') return null; // a name, not a value: chdb binds it
  if (Array.isArray(value)) return value.every(isScalar) ? `CAST([${value.map(literal).join(',')}] AS ${trimmed})` : null;
  if (!isScalar(value)) return null;
  // A string for a String, an integer for an integer type, needs no cast; integers stay bare, so LIMIT and
  // OFFSET read them as they read any number.
  if (typeof value === 'string' ? trimmed === 'String' : INTEGER_TYPE.test(trimmed)) return literal(value);
  return `CAST(${literal(value)} AS ${trimmed})`;
}

/**
 * `query` with each of its {name:Type} placeholders replaced by the value of
 * `params[name]` as a literal of that type; null if any value cannot be
 * written so (the caller then binds them as before).
 */
export function inlineQueryParams(query: string, params: Record<string, unknown>): string | null {
  let inlinable = true;
  const rendered = query.replace(PLACEHOLDER, (placeholder, name: string, type: string) => {
    if (!Object.hasOwn(params, name)) return placeholder;
    const written = typedLiteral(params[name], type);
    if (written === null) inlinable = false;
    return written ?? placeholder;
  });
  return inlinable ? rendered : null;
}
