// RowBinary as cairn writes it: what the writer writes, the reader reads back
// exactly, and the engine reads the same values (encoded-rows.test.ts).
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { readRows, RowBinaryReader, RowBinaryWriter, structureOf } from './row-binary.js';

const COLUMNS = [
  ['id', 'UUID'],
  ['name', 'LowCardinality(String)'],
  ['at', "DateTime64(3, 'UTC')"],
  ['maybe', "Nullable(DateTime64(3, 'UTC'))"],
  ['fields', 'Map(LowCardinality(String), Array(String))'],
] as const;

const uuid = fc.uuid().map((u) => u.toLowerCase());
// DateTime64(3) holds 1900 to 2299.
const time = fc.integer({ min: Date.UTC(1900, 0, 1), max: Date.UTC(2299, 11, 31) });
const text = fc.oneof(fc.string({ unit: 'grapheme', maxLength: 300 }), fc.string({ unit: 'binary', maxLength: 40 }), fc.string({ minLength: 120, maxLength: 20_000 }));

function asTime(ms: number): string {
  return new Date(ms).toISOString().replace('T', ' ').replace('Z', '');
}

describe('RowBinaryWriter and RowBinaryReader', () => {
  it('read back every value written, row by row, with where each row starts', () => {
    const row = fc.record({ id: uuid, name: text, at: time, maybe: fc.option(time), fields: fc.dictionary(text, fc.array(text, { maxLength: 4 }), { maxKeys: 6 }) });
    fc.assert(
      fc.property(fc.array(row, { maxLength: 20 }), (rows) => {
        const writer = new RowBinaryWriter(16);
        for (const r of rows) {
          writer.row().uuid(r.id).string(r.name).dateTime64(r.at);
          if (r.maybe === null) writer.nullFlag(true);
          else writer.nullFlag(false).dateTime64(r.maybe);
          const entries = Object.entries(r.fields);
          writer.varUInt(entries.length);
          for (const [key, values] of entries) {
            writer.string(key).varUInt(values.length);
            for (const v of values) writer.string(v);
          }
        }
        const { body, rowStarts } = writer.finish();
        expect(rowStarts).toHaveLength(rows.length);
        expect(readRows(body, COLUMNS)).toEqual(rows.map((r) => ({ ...r, at: asTime(r.at), maybe: r.maybe === null ? null : asTime(r.maybe) })));
        rowStarts.forEach((start, i) => expect(new RowBinaryReader(body, start).uuid()).toBe(rows[i]!.id));
      }),
      // A map key "__proto__" (what a log may hold) read back as a key, not as the object's prototype.
      { examples: [[[{ id: '00000000-0000-1000-8000-000000000000', name: '', at: 0, maybe: null, fields: JSON.parse('{"__proto__":["x"]}') as Record<string, string[]> }]]] },
    );
  });

  it('writes lengths past one byte of LEB128 and strings past the ASCII fast path', () => {
    const writer = new RowBinaryWriter(4);
    const long = 'x'.repeat(20_000);
    writer.row().string(long).string('é').string('a'.repeat(127)).string('a'.repeat(128));
    const reader = new RowBinaryReader(writer.finish().body);
    expect([reader.string(), reader.string(), reader.string(), reader.string()]).toEqual([long, 'é', 'a'.repeat(127), 'a'.repeat(128)]);
  });

  it('refuses what is not a UUID or a time instead of writing garbage', () => {
    const writer = new RowBinaryWriter();
    expect(() => writer.uuid('not-a-uuid')).toThrow(/not a UUID/);
    expect(() => writer.uuid('0190c3f2-7b1a-7c00-8000-00000000000g')).toThrow(/not a UUID/);
    expect(() => writer.dateTime64(Number.NaN)).toThrow(/not a time/);
  });

  it('names the columns and types as a ClickHouse structure', () => {
    expect(structureOf(COLUMNS.slice(0, 2))).toBe('id UUID, name LowCardinality(String)');
  });
});
