// The pure parts of the Elastic fidelity run, on small inline fixtures (the
// corpus itself is not needed: npm test passes without the samples).
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { jsonInputs, logInputs, pairExpected, readCorpus, readSettings, zoneOffset, type Input } from './elastic-corpus.js';
import { compareKeyFields, judgedBy, parseJudged, type Difference } from './elastic-fidelity.js';

const inputs = (...texts: string[]): Input[] => texts.map((t, i) => ({ line: i + 1, raw: t, original: t }));

describe('logInputs', () => {
  it('gives one input per line, without the final newline or carriage returns', () => {
    expect(logInputs('a\r\nb\n')).toEqual(inputs('a', 'b'));
  });

  it('joins the lines after a first line with "\\n", as a shipper\'s multiline setting does', () => {
    const content = 'stray\n2024/01/02 one\n  more\nand more\n2024/01/03 two\n';
    expect(logInputs(content, /^\d{4}\/\d{2}\/\d{2} /)).toEqual([
      { line: 1, raw: 'stray', original: 'stray' },
      { line: 2, raw: '2024/01/02 one\n  more\nand more', original: '2024/01/02 one\n  more\nand more' },
      { line: 5, raw: '2024/01/03 two', original: '2024/01/03 two' },
    ]);
  });
});

describe('jsonInputs', () => {
  it('sends each event as one JSON line and takes what Elastic quotes from the event', () => {
    const events = [{ event: { original: '<Event/>' }, winlog: { id: 1 } }, { message: 'text' }, { winlog: { id: 3 } }];
    const got = jsonInputs(JSON.stringify({ events }));
    expect(got.map((i) => i.raw)).toEqual(events.map((e) => JSON.stringify(e)));
    expect(got.map((i) => i.original)).toEqual(['<Event/>', 'text', JSON.stringify(events[2])]);
  });
});

describe('pairExpected', () => {
  const doc = (original?: string, extra: object = {}) => ({ ...(original === undefined ? {} : { event: { original } }), ...extra });

  it('pairs by event.original, trailing newline trimmed, in any order; a suffix pairs when no line is equal', () => {
    const p = pairExpected(inputs('x one', 'x two', '161209 14:18:50 [Note] three'), [doc('x two\n'), doc('[Note] three'), doc('x one')]);
    expect(p.pairedBy).toEqual(['original', 'original', 'original']);
    expect(p.expected.map((d) => (d as { event: { original: string } }).event.original)).toEqual(['x one', 'x two\n', '[Note] three']);
    expect(p.unpaired).toBe(0);
  });

  it('pairs the documents left by position when the counts agree, dropped (null) documents too', () => {
    const p = pairExpected(inputs('a', 'b', 'c'), [doc('a'), null, doc('c rewritten')]);
    expect(p.pairedBy).toEqual(['original', 'position', 'position']);
    expect(p.expected[1]).toBeNull();
  });

  it('pairs the first inputs by position when no document quotes its input', () => {
    const p = pairExpected(inputs('a', 'b', 'c'), [doc(undefined, { n: 1 }), doc(undefined, { n: 2 })]);
    expect(p.expected).toEqual([{ n: 1 }, { n: 2 }, undefined]);
  });

  it('counts documents that quote no input when the counts differ', () => {
    const p = pairExpected(inputs('a', 'b'), [doc('a'), doc('b'), doc('from another version')]);
    expect(p.pairedBy).toEqual(['original', 'original']);
    expect(p.unpaired).toBe(1);
  });
});

describe('zoneOffset', () => {
  it('reads the offsets the tests give and refuses zone names', () => {
    expect(['GMT+2', '+0500', 'GMT-0200', '-04:00', 'UTC', '+0000'].map(zoneOffset)).toEqual(['+02:00', '+05:00', '-02:00', '-04:00', '+00:00', '+00:00']);
    expect(zoneOffset('America/New_York')).toBeUndefined();
    expect(zoneOffset('Local')).toBeUndefined();
  });
});

describe('readCorpus', () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'elastic-corpus-'));
  afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));
  const write = (file: string, text: string) => {
    fs.mkdirSync(path.dirname(path.join(dir, file)), { recursive: true });
    fs.writeFileSync(path.join(dir, file), text);
  };
  write('MANIFEST-windows-zeek.tsv', 'package\tstream\tfile\ncorp\tzeekish\ttest-z.log\t0\t1\t1\n');
  write('corp/web/test-common-config.yml', 'multiline:\n  first_line_pattern: "^\\\\d{4}/"\nfields:\n  "@timestamp": "2020-04-28T11:07:58.223Z"\n  _conf:\n    tz_offset: "America/Chicago"\n');
  write('corp/web/test-a.log-config.yml', 'fields:\n  event.timezone: "GMT+2"\n');
  write('corp/web/test-a.log', '2020/01/01 first\n continued\n2020/01/02 second\n');
  write('corp/web/test-a.log-expected.json', JSON.stringify({ expected: [{ event: { original: '2020/01/01 first\n continued' } }, null] }));
  write('corp/web/test-b.log', 'no expected file\n');
  write('corp/zeekish/test-z.log', '{"id":1}\n');

  it('reads settings: the file\'s config over the common one, zone names skipped for offsets', () => {
    const settings = readSettings(path.join(dir, 'corp/web'), 'test-a.log');
    expect(settings.firstLine?.test('2020/01/01 x')).toBe(true);
    expect(settings.timezone).toBe('+02:00');
    expect(settings.readAt).toBe(Date.parse('2020-04-28T11:07:58.223Z'));
    expect(readSettings(path.join(dir, 'corp/web'), 'test-b.log').timezone).toBeUndefined();
  });

  it('reads every test file with its inputs, pairing and section', () => {
    const tests = readCorpus(dir);
    expect(tests.map((t) => [`${t.package}/${t.stream}/${t.file}`, t.section, t.inputs.length])).toEqual([
      ['corp/web/test-a.log', 'main', 2],
      ['corp/web/test-b.log', 'main', 1],
      ['corp/zeekish/test-z.log', 'windows-zeek', 1],
    ]);
    expect(tests[0]!.pairing?.pairedBy).toEqual(['original', 'position']);
    expect(tests[1]!.pairing).toBeUndefined();
  });
});

describe('compareKeyFields', () => {
  it('compares only fields the expected document has, canonical IPs, sets, numbers as text; a missing field disagrees', () => {
    const got = compareKeyFields(
      { 'source.ip': '::ffff:10.0.0.1', 'source.port': '443', 'event.category': ['network', 'web'], 'user.name': 'bob' },
      { 'source.ip': '10.0.0.1', 'source.port': 443, 'event.category': ['web', 'network'], 'destination.ip': '10.0.0.2' },
    );
    expect(got.map((c) => [c.field, c.expected === c.actual, c.actual])).toEqual([
      ['source.ip', true, '10.0.0.1'],
      ['source.port', true, '443'],
      ['event.category', true, 'network|web'],
      ['user.name', false, '(missing)'],
    ]);
  });

  it('compares url.original, or url.path where the expected document has only that', () => {
    expect(compareKeyFields({ 'url.original': '/a?b', 'url.path': '/a' }, { 'url.path': '/a' })[0]).toMatchObject({ field: 'url', expected: '/a?b', actual: '(missing)' });
    expect(compareKeyFields({ 'url.path': '/a' }, { 'url.path': '/a', 'url.original': '/a?b' })[0]).toMatchObject({ field: 'url', expected: '/a', actual: '/a' });
  });
});

describe('judged differences', () => {
  const d: Difference = { stream: 'panw/panos', file: 'test-x.log', line: 3, field: 'event.action', expected: 'flow_started', actual: 'start' };

  it('judges a difference when the package (or package/stream), field and every selector given are equal', () => {
    const entries = parseJudged(
      JSON.stringify([
        { package: 'panw', field: 'event.outcome', reason: 'another field' },
        { package: 'panw/panos', field: 'event.action', line: 4, reason: 'another line' },
        { package: 'panw', field: 'event.action', match: { expected: 'flow_started', actual: 'other' }, reason: 'another value' },
        { package: 'panw/panos', field: 'event.action', file: 'test-x.log', match: { actual: 'start' }, reason: 'cairn names actions by what happened' },
      ]),
    );
    expect(judgedBy(entries, d)).toBe(3);
    expect(judgedBy(entries.slice(0, 3), d)).toBeUndefined();
    expect(judgedBy([{ package: 'panw', field: 'event.action', reason: 'all of them' }], d)).toBe(0);
  });

  it('refuses entries without a reason, of fields not compared, or with unknown selectors', () => {
    expect(() => parseJudged('[{"package": "panw", "field": "event.action"}]')).toThrow();
    expect(() => parseJudged('[{"package": "panw", "field": "event.kind", "reason": "r"}]')).toThrow();
    expect(() => parseJudged('[{"package": "panw", "field": "event.action", "lines": [1], "reason": "r"}]')).toThrow();
  });

  it('reads the repository\'s list', () => {
    expect(Array.isArray(parseJudged(fs.readFileSync(path.join(import.meta.dirname, 'fidelity-judged.json'), 'utf8')))).toBe(true);
  });
});
