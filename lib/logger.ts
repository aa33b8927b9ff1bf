// One structured logger (pino). Secret-bearing fields are redacted wherever
// they appear, so a log line never carries a password, token or key.
//
// Lines are JSON (one object per line, for files, pipes and log collectors)
// or, for people at a terminal, readable: time, level, message, then the
// fields as key=value and an error's stack below. CAIRN_LOG_FORMAT chooses;
// unset, standard output decides: a terminal gets readable lines.
import { isatty } from 'node:tty';
import { pino, type DestinationStream, type Logger } from 'pino';

export type { Logger };

export const LOG_FORMATS = ['json', 'pretty'] as const;
export type LogFormat = (typeof LOG_FORMATS)[number];

const REDACTED_PATHS = [
  'password',
  '*.password',
  'token',
  '*.token',
  'secret',
  '*.secret',
  'authorization',
  '*.authorization',
  'headers.authorization',
  'req.headers.authorization',
  '*.private_key',
  '*.sp_private_key',
  'bind_password',
  '*.bind_password',
  'cookie',
  '*.cookie',
  'headers.cookie',
];

/**
 * The format CAIRN_LOG_FORMAT names, else readable lines when standard output
 * is a terminal. Asked of file descriptor 1, not process.stdout, so a worker
 * thread (whose process.stdout is a pipe to the main thread) chooses as the
 * process does.
 */
export function chosenLogFormat(setting: string | undefined = process.env.CAIRN_LOG_FORMAT): LogFormat {
  if (setting === 'json' || setting === 'pretty') return setting;
  return isatty(1) ? 'pretty' : 'json';
}

/** `destination` defaults to stdout; tests pass one that keeps the lines (JSON, unless `format` says otherwise). */
export function createLogger(level: string = process.env.CAIRN_LOG_LEVEL ?? 'info', destination?: DestinationStream, format: LogFormat = destination ? 'json' : chosenLogFormat()): Logger {
  const options = { level, base: { service: 'cairn' }, redact: { paths: REDACTED_PATHS, censor: '[redacted]' } };
  if (format === 'pretty') {
    const out = destination ?? process.stdout;
    const colour = !destination && isatty(1) && process.env.NO_COLOR === undefined;
    return pino(options, { write: (line: string) => void out.write(readableLine(line, colour)) });
  }
  return destination ? pino(options, destination) : pino(options);
}

const LEVELS: Record<number, { name: string; colour: string }> = {
  10: { name: 'TRACE', colour: '90' },
  20: { name: 'DEBUG', colour: '36' },
  30: { name: 'INFO', colour: '32' },
  40: { name: 'WARN', colour: '33' },
  50: { name: 'ERROR', colour: '31' },
  60: { name: 'FATAL', colour: '35' },
};

/** A value as it reads best after `key=`: plain words bare, anything else as JSON (so quoted and escaped). */
function fieldValue(value: unknown): string {
  if (typeof value === 'string' && /^[^\s"=]+$/.test(value)) return value;
  if (typeof value === 'number' || typeof value === 'boolean' || value === null) return String(value);
  return JSON.stringify(value) ?? String(value);
}

/** One pino JSON line as a readable one: `2026-11-27T19:38:01.123Z INFO  runtime ready bus=local ...`, and an error's stack indented below. */
export function readableLine(json: string, colour = false): string {
  let record: Record<string, unknown>;
  try {
    record = JSON.parse(json) as Record<string, unknown>;
  } catch {
    return json.endsWith('\n') ? json : `${json}\n`;
  }
  const { level, time, msg, service: _service, err, ...fields } = record;
  const known = LEVELS[level as number];
  const levelName = (known?.name ?? String(level)).padEnd(5);
  const paint = (code: string, text: string) => (colour ? `\u001b[${code}m${text}\u001b[0m` : text);
  const when = typeof time === 'number' ? new Date(time).toISOString() : '';
  let line = `${paint('2', when)} ${paint(known?.colour ?? '0', levelName)} ${typeof msg === 'string' ? msg : ''}`;
  const stack = err && typeof err === 'object' && typeof (err as { stack?: unknown }).stack === 'string' ? (err as { stack: string }).stack : null;
  if (err !== undefined && !stack) fields.err = err;
  const pairs = Object.entries(fields).map(([key, value]) => `${key}=${fieldValue(value)}`);
  if (pairs.length > 0) line += ` ${paint('2', pairs.join(' '))}`;
  if (stack) line += `\n${stack.replace(/^/gm, '    ')}`;
  return `${line}\n`;
}
