// The parts of ClickHouse's HTTP protocol that clients and BI tools use
// (ClickHouse docs, "HTTP Interface"): where the query, its format, its
// parameters, the database and the credentials come from in a request, and
// how an error is answered. No I/O here: server.ts does that.
import type { IncomingHttpHeaders } from 'node:http';

/** ClickHouse's error codes this interface answers with (ClickHouse's ErrorCodes). */
export const ErrorCode = {
  UNKNOWN_DATABASE: 81,
  SYNTAX_ERROR: 62,
  UNKNOWN_TABLE: 60,
  BAD_ARGUMENTS: 36,
  READONLY: 164,
  ACCESS_DENIED: 497,
  AUTHENTICATION_FAILED: 516,
  UNKNOWN_FORMAT: 73,
  HTTP_LENGTH_REQUIRED: 381,
  QUERY_IS_TOO_LARGE: 167,
} as const;

const ERROR_NAMES: Record<number, string> = Object.fromEntries(Object.entries(ErrorCode).map(([name, code]) => [code, name]));

/** An error answered as ClickHouse answers it: the code in a header and in the text body. */
export class ClickHouseHttpError extends Error {
  constructor(
    readonly code: number,
    message: string,
    /** ClickHouse's name of the code (UNKNOWN_TABLE), when the engine gave one. */
    readonly type: string = ERROR_NAMES[code] ?? 'UNKNOWN_EXCEPTION',
  ) {
    super(message);
  }

  /** The HTTP status ClickHouse gives this code (its exceptionCodeToHTTPStatus, for the codes seen here). */
  get status(): number {
    switch (this.code) {
      case ErrorCode.AUTHENTICATION_FAILED:
      case 192: // UNKNOWN_USER
      case 193: // WRONG_PASSWORD
      case 194: // REQUIRED_PASSWORD
        return 401;
      case ErrorCode.READONLY:
      case ErrorCode.ACCESS_DENIED:
        return 403;
      case ErrorCode.SYNTAX_ERROR:
      case ErrorCode.BAD_ARGUMENTS:
      case ErrorCode.UNKNOWN_FORMAT:
      case 6: // CANNOT_PARSE_TEXT
      case 27: // CANNOT_PARSE_INPUT_ASSERTION_FAILED
      case 43: // ILLEGAL_TYPE_OF_ARGUMENT
      case 53: // TYPE_MISMATCH
      case 115: // UNKNOWN_SETTING
      case 456: // UNKNOWN_QUERY_PARAMETER
      case 457: // BAD_QUERY_PARAMETER
        return 400;
      case ErrorCode.UNKNOWN_TABLE:
      case ErrorCode.UNKNOWN_DATABASE:
      case 16: // NO_SUCH_COLUMN_IN_TABLE
      case 46: // UNKNOWN_FUNCTION
      case 47: // UNKNOWN_IDENTIFIER
        return 404;
      case ErrorCode.QUERY_IS_TOO_LARGE:
        return 413;
      case ErrorCode.HTTP_LENGTH_REQUIRED:
        return 411;
      default:
        return 500;
    }
  }

  /** The body: "Code: 60. DB::Exception: <message>. (UNKNOWN_TABLE) (version ...)", which clients parse. */
  body(version: string): string {
    const message = this.message.replace(/\.?\s*$/, '');
    return `Code: ${this.code}. DB::Exception: ${message}. (${this.type}) (version ${version})\n`;
  }
}

/** An engine error as the client library gives it (code and type parsed from ClickHouse's text), else null. */
export function fromEngineError(err: unknown): ClickHouseHttpError | null {
  const { code, type } = err as { code?: unknown; type?: unknown };
  if (code === undefined || !/^\d+$/.test(String(code))) return null;
  const message = (err as Error).message.replace(/^default: /, '');
  return new ClickHouseHttpError(Number(code), message, typeof type === 'string' && type ? type : ERROR_NAMES[Number(code)]);
}

export interface Credentials {
  user: string;
  password: string;
}

/** Credentials as ClickHouse takes them: X-ClickHouse-User/-Key, else basic auth, else the user/password URL parameters. */
export function credentialsOf(headers: IncomingHttpHeaders, url: URLSearchParams): Credentials {
  const header = (name: string) => {
    const value = headers[name];
    return Array.isArray(value) ? value[0] : value;
  };
  const user = header('x-clickhouse-user');
  const key = header('x-clickhouse-key');
  if (user !== undefined || key !== undefined) return { user: user ?? 'default', password: key ?? '' };
  const basic = /^Basic\s+(\S+)\s*$/i.exec(header('authorization') ?? '')?.[1];
  if (basic) {
    const text = Buffer.from(basic, 'base64').toString('utf8');
    const colon = text.indexOf(':');
    return colon < 0 ? { user: text, password: '' } : { user: text.slice(0, colon), password: text.slice(colon + 1) };
  }
  return { user: url.get('user') ?? 'default', password: url.get('password') ?? '' };
}

/**
 * The query text: the `query` URL parameter, with the body appended when
 * both are given (as ClickHouse does: a client may put the start of an
 * INSERT in the URL and its data in the body).
 */
export function queryText(url: URLSearchParams, body: string): string {
  const inUrl = url.get('query') ?? '';
  if (inUrl && body) return `${inUrl}\n${body}`;
  return inUrl || body;
}

const PLACEHOLDER = /\{([A-Za-z_][A-Za-z0-9_]*)\s*:\s*([^{}]+)\}/g;

/** ClickHouse's escape sequences of the TabSeparated ("escaped") text format, in which a String parameter is given. */
const TSV_ESCAPES: Record<string, string> = { b: '\b', f: '\f', r: '\r', n: '\n', t: '\t', '0': '\0', a: '\x07', v: '\v', '\\': '\\', "'": "'", '"': '"' };

function unescapeText(value: string): string {
  return value.replace(/\\(x[0-9A-Fa-f]{2}|.)/gs, (whole, c: string) => (c.length === 3 ? String.fromCharCode(parseInt(c.slice(1), 16)) : TSV_ESCAPES[c] ?? c));
}

/**
 * The `param_<name>` URL parameters of the query's {name:Type} placeholders,
 * as values for the store client. ClickHouse reads a parameter's text as a
 * value of the placeholder's type in its escaped text format: a String's text
 * is unescaped here (the client escapes it again, or the embedded store
 * writes it as a literal); other types keep their text, which the engine
 * casts to the type (an Array(String) as ['a','b']).
 */
export function queryParams(query: string, url: URLSearchParams): Record<string, string> {
  const params: Record<string, string> = {};
  for (const [, name, type] of query.matchAll(PLACEHOLDER)) {
    const value = url.get(`param_${name!}`);
    if (value === null || Object.hasOwn(params, name!)) continue;
    params[name!] = type!.trim() === 'String' ? unescapeText(value) : value;
  }
  return params;
}

/**
 * Settings a client may send as URL parameters that this interface honours:
 * output formatting, and limits that can only make a query smaller (the
 * interface's own limits still hold). Anything else (protocol switches such
 * as wait_end_of_query, compression, progress headers, and any setting that
 * would change what a query may do) is ignored, as a read-only server user's
 * would be.
 */
const HONOURED_SETTINGS = /^(output_format_\w+|format_csv_\w+|format_tsv_\w+|date_time_output_format|max_result_rows|max_result_bytes|result_overflow_mode|max_execution_time|extremes)$/;

/** The honoured settings among the URL parameters, by name: value as text. */
export function clientSettings(url: URLSearchParams): Map<string, string> {
  const settings = new Map<string, string>();
  for (const [name, value] of url) if (HONOURED_SETTINGS.test(name)) settings.set(name, value);
  return settings;
}

/** A setting's value in a SETTINGS clause: numbers bare, anything else a quoted string. */
export function settingValue(value: string): string {
  return /^-?\d+(\.\d+)?$/.test(value) ? value : sqlString(value);
}

/** A ClickHouse string literal holding `value` exactly. */
export function sqlString(value: string): string {
  return `'${value.replace(/[\\'\x00-\x1f\x7f]/g, (c) => `\\x${c.charCodeAt(0).toString(16).padStart(2, '0')}`)}'`;
}

/** Content types ClickHouse answers formats with; others are text/plain. */
export function contentTypeOf(format: string): string {
  const f = format.toLowerCase();
  if (f.startsWith('json')) return f.includes('eachrow') || f.includes('lines') ? 'application/x-ndjson; charset=UTF-8' : 'application/json; charset=UTF-8';
  if (f.startsWith('tabseparated') || f.startsWith('tsv')) return 'text/tab-separated-values; charset=UTF-8';
  if (f.startsWith('csv')) return `text/csv; charset=UTF-8; header=${f.includes('withnames') ? 'present' : 'absent'}`;
  if (f.startsWith('rowbinary') || f === 'native' || f === 'parquet' || f === 'arrow' || f === 'arrowstream') return 'application/octet-stream';
  return 'text/plain; charset=UTF-8';
}
