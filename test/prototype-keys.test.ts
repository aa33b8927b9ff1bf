// Names that an object literal answers from its prototype ("constructor",
// "toString", "valueOf", "hasOwnProperty"), arriving where cairn looks names
// up in its tables: an artifact's source, log field names, a searched field,
// a Sigma rule's field. Each must be an ordinary name.
import { describe, expect, it } from 'vitest';
import { eventFieldValues } from '../clickhouse/tables/events.js';
import { SqlParams } from '../clickhouse/sql.js';
import { parseRaw } from '../pipeline/parser/registry.js';
import { findLogsource, mapField } from '../query/sigma/mapping.js';

const NAMES = ['constructor', 'toString', 'valueOf', 'hasOwnProperty'];
const ctx = (source: string) => ({ source, receivedAt: Date.parse('2026-11-27T00:00:00Z') });

describe('names an object inherits', () => {
  it('are sources like any other: the artifact is parsed by content', () => {
    for (const source of NAMES) {
      expect(parseRaw('{"user":"alice","src_ip":"10.0.0.1"}', ctx(source))).toMatchObject({ parser: 'json', fields: { 'source.ip': '10.0.0.1' } });
      expect(() => parseRaw('nothing any parser knows', ctx(source))).toThrow(/no parser recognised the artifact/);
    }
  });

  it('are field names kept as written, in JSON and in key=value logs', () => {
    const json = parseRaw(JSON.stringify(Object.fromEntries(NAMES.map((n) => [n, `v-${n}`]))), ctx('app'));
    for (const name of NAMES) expect(json.fields[name], name).toBe(`v-${name}`);
    const kv = parseRaw('user=bob constructor=1 valueOf=3', ctx('app'));
    expect(kv.fields).toMatchObject({ 'user.name': 'bob', constructor: 1, valueOf: 3 });
    expect(Object.keys(kv.fields).filter((k) => k.startsWith('function'))).toEqual([]);
  });

  it('include "__proto__", kept with a scalar value in JSON, JSON auth and key=value logs, at the top and nested', () => {
    // JSON.parse makes "__proto__" an own key; written into an object literal it set the prototype, and a scalar was dropped.
    const json = parseRaw('{"__proto__":"top","user":"alice","b":{"__proto__":"nested"}}', ctx('app'));
    expect(Object.entries(json.fields)).toEqual(expect.arrayContaining([['__proto__', 'top'], ['b.__proto__', 'nested'], ['user.name', 'alice']]));
    const kv = parseRaw('user=bob __proto__=7 action=deny', ctx('app'));
    expect(Object.entries(kv.fields)).toEqual(expect.arrayContaining([['__proto__', 7], ['user.name', 'bob'], ['event.action', 'deny']]));
    const auth = parseRaw('{"user":"carol","event":"login","result":"failure","src_ip":"10.0.0.2","__proto__":"kept"}', ctx('app'));
    expect(auth.parser).toBe('json-auth');
    expect(Object.entries(auth.fields)).toEqual(expect.arrayContaining([['__proto__', 'kept'], ['user.name', 'carol'], ['event.outcome', 'failure']]));
  });

  it('are searched in the fields map, not taken for a promoted column', () => {
    for (const name of NAMES) {
      const params = new SqlParams();
      expect(eventFieldValues(name, params)).toMatch(/^fields\[\{p\d+:String\}\]$/);
    }
    expect(eventFieldValues('source.ip', new SqlParams())).toBe('f_source_ip');
  });

  it('are Sigma fields without a mapping, not mapped to a function', () => {
    const sshd = findLogsource({ product: 'linux', service: 'sshd' })!;
    for (const name of NAMES) expect(mapField(sshd, name)).toBeNull();
  });
});
