// Telling a transient failure (retry later) from bad input (dead-letter it).

/** Thrown by code that knows the failure will pass: a dependency is down or busy. */
export class TransientError extends Error {
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'TransientError';
  }
}

const TRANSIENT_NODE_CODES = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'ECONNABORTED',
  'ETIMEDOUT',
  'EPIPE',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'EAI_AGAIN',
  'UND_ERR_SOCKET',
  'UND_ERR_CONNECT_TIMEOUT',
]);

/**
 * True for failures that say nothing about the message: network errors,
 * `TransientError`, and errors their library marks retriable (kafkajs sets
 * `retriable`). Anything else is taken as a problem with the input.
 */
export function isTransientError(err: unknown): boolean {
  if (!(err instanceof Error)) return false;
  if (err instanceof TransientError) return true;
  const { code, retriable } = err as Error & { code?: unknown; retriable?: unknown };
  if (retriable === true) return true;
  if (typeof code === 'string' && TRANSIENT_NODE_CODES.has(code)) return true;
  if (err.message.includes('socket hang up')) return true;
  return err.cause !== undefined && err.cause !== err && isTransientError(err.cause);
}

export function errorMessage(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}
