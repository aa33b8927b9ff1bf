// The shared syslog header reader: times, year inference, host and program.
import { describe, expect, it } from 'vitest';
import { offsetMinutes, parseIsoTime, parseSyslogHeader, syslogFields } from './syslog-header.js';
import type { ParseContext } from './types.js';

const CTX: ParseContext = { source: 'syslog', receivedAt: Date.UTC(2024, 5, 1) };

describe('parseSyslogHeader', () => {
  it('reads an RFC 3164 header with a space-padded day', () => {
    expect(parseSyslogHeader('Jun  1 06:01:02 host program[4242]: message', CTX)).toEqual({
      timestamp: '2024-06-01T06:01:02.000Z',
      hostname: 'host',
      program: 'program',
      pid: 4242,
      priority: undefined,
      message: 'message',
    });
  });

  it('puts a year-less time in the year before when it would be more than a day ahead', () => {
    expect(parseSyslogHeader('Dec 31 23:00:00 h p: m', { ...CTX, receivedAt: Date.UTC(2025, 0, 1) })?.timestamp).toBe('2024-12-31T23:00:00.000Z');
    expect(parseSyslogHeader('Jun  1 23:00:00 h p: m', CTX)?.timestamp).toBe('2024-06-01T23:00:00.000Z');
    expect(parseSyslogHeader('Jun  2 06:00:00 h p: m', CTX)?.timestamp).toBe('2023-06-02T06:00:00.000Z');
  });

  it('keeps a year the line carries, as Cisco ASA writes it', () => {
    expect(parseSyslogHeader('Oct 10 2018 12:34:56 host program[999]: message', CTX)?.timestamp).toBe('2018-10-10T12:34:56.000Z');
  });

  it('gives no timestamp for a date that does not exist, rather than rolling it over', () => {
    expect(parseSyslogHeader('Feb 30 10:00:00 h p: m', CTX)).toMatchObject({ timestamp: undefined, hostname: 'h', message: 'm' });
    expect(parseSyslogHeader('Jun  1 24:00:00 h p: m', CTX)?.timestamp).toBeUndefined();
    expect(parseIsoTime('2024-13-01T00:00:00Z', CTX)).toBeUndefined();
  });

  it('dates a year-less Feb 29 in the last leap year', () => {
    expect(parseSyslogHeader('Feb 29 10:00:00 h p: m', { ...CTX, receivedAt: Date.UTC(2025, 5, 1) })?.timestamp).toBe('2024-02-29T10:00:00.000Z');
  });

  it('drops all the spaces between the program and its message', () => {
    expect(parseSyslogHeader('Feb 24 00:13:02 precise32 sudo:      tsg : user NOT in sudoers', CTX)?.message).toBe('tsg : user NOT in sudoers');
  });

  it('reads the hostless "--- last message repeated ---" mark of BSD syslogd', () => {
    expect(parseSyslogHeader('Apr 4 03:39:57 --- last message repeated 1 time ---', CTX)).toEqual({
      timestamp: '2024-04-04T03:39:57.000Z',
      priority: undefined,
      message: '--- last message repeated 1 time ---',
    });
  });

  it('drops a trailing CR', () => {
    expect(parseSyslogHeader('Jun  1 10:00:00 h sshd[1]: bye\r', CTX)?.message).toBe('bye');
  });

  it('reads RFC 5424 and its nil values', () => {
    expect(parseSyslogHeader('<165>1 2024-06-01T10:00:00.003+02:00 host app - ID47 [a b="c"] msg', CTX)).toMatchObject({
      timestamp: '2024-06-01T08:00:00.003Z',
      hostname: 'host',
      program: 'app',
      pid: undefined,
      priority: 165,
      message: 'msg',
    });
    expect(parseSyslogHeader('<14>1 - - - - - - msg', CTX)).toMatchObject({ timestamp: undefined, hostname: undefined, message: 'msg' });
  });

  it('reads a host with no program', () => {
    expect(parseSyslogHeader('Oct 10 2019 10:21:36 host: message', CTX)).toMatchObject({ hostname: 'host', message: 'message' });
  });

  it('returns null when there is no syslog time', () => {
    expect(parseSyslogHeader('Foo 10 10:21:36 host: message', CTX)).toBeNull();
    expect(parseSyslogHeader('{"a":1}', CTX)).toBeNull();
  });
});

describe('time helpers', () => {
  it('reads offsets', () => {
    expect([offsetMinutes('Z'), offsetMinutes('+02:00'), offsetMinutes('-0130'), offsetMinutes('Europe/Paris')]).toEqual([0, 120, -90, undefined]);
  });

  it('truncates sub-millisecond fractions and uses ctx.timezone for zoneless times', () => {
    expect(parseIsoTime('2019-06-14T10:40:20.912134', { ...CTX, timezone: '-02:00' })).toBe('2019-06-14T12:40:20.912Z');
  });

  it('turns a header into ECS fields, leaving absent ones out', () => {
    expect(syslogFields({ timestamp: '2024-06-01T00:00:00.000Z', priority: 38, message: 'm' })).toEqual({
      '@timestamp': '2024-06-01T00:00:00.000Z',
      'log.syslog.priority': 38,
      'log.syslog.facility.code': 4,
      'log.syslog.severity.code': 6,
      message: 'm',
    });
  });
});
