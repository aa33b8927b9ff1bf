// One structured logger (pino). Secret-bearing fields are redacted wherever
// they appear, so a log line never carries a password, token or key.
import { pino, type DestinationStream, type Logger } from 'pino';

export type { Logger };

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

/** `destination` defaults to stdout; tests pass one that keeps the lines. */
export function createLogger(level: string = process.env.CAIRN_LOG_LEVEL ?? 'info', destination?: DestinationStream): Logger {
  const options = { level, base: { service: 'cairn' }, redact: { paths: REDACTED_PATHS, censor: '[redacted]' } };
  return destination ? pino(options, destination) : pino(options);
}
