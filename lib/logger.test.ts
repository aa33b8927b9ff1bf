// The readable log format: time, level, message, fields as key=value, an
// error's stack below; secrets redacted as in JSON. A destination a caller
// passes (tests keep lines so) gets JSON unless asked otherwise.
import { describe, expect, it } from 'vitest';
import { createLogger, readableLine } from './logger.js';

describe('log lines', () => {
  it('are JSON on a destination by default, readable when asked, with secrets redacted in both', () => {
    const lines: string[] = [];
    const keep = { write: (line: string) => void lines.push(line) };
    createLogger('info', keep).info({ port: 8080, password: 'hunter2' }, 'API listening');
    expect(JSON.parse(lines[0]!)).toMatchObject({ level: 30, msg: 'API listening', port: 8080, password: '[redacted]' });

    createLogger('info', keep, 'pretty').error({ err: new Error('boom'), who: 'a b', token: 'secret-token', stage: 'store' }, 'batch failed');
    const [first, second] = lines[1]!.split('\n');
    expect(first).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z ERROR batch failed who="a b" token=\[redacted\] stage=store$/);
    expect(second).toBe('    Error: boom');
    expect(lines[1]).not.toContain('secret-token');
  });

  it('turns a line that is not JSON into itself', () => {
    expect(readableLine('not json')).toBe('not json\n');
  });
});
