// Option value parsers shared by commands: a bad value is a usage error that names the option.
import { InvalidArgumentError } from 'commander';
import { parseDuration } from '../../lib/duration.js';

export function positiveInteger(value: string): number {
  const n = Number(value);
  if (!/^\d+$/.test(value) || !Number.isSafeInteger(n) || n < 1) throw new InvalidArgumentError('must be a positive integer');
  return n;
}

export function durationMs(value: string): number {
  try {
    return parseDuration(value);
  } catch {
    throw new InvalidArgumentError('must be a duration such as 30m, 1h or 7d');
  }
}
