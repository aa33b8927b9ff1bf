// Parameters written into statements for the embedded engine read back as
// the values bound by the engine would: any string (quotes, backslashes,
// control characters, any Unicode), integers, arrays, each of its type.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { useTestStore } from '../test/helpers/store.js';
import { inlineQueryParams } from './inline-params.js';

const db = useTestStore('inline-params', { migrated: false, embedded: true });

async function firstRow(query: string, params: Record<string, unknown>): Promise<Record<string, unknown>> {
  const result = await db.store.query({ query, query_params: params, format: 'JSONEachRow' });
  return ((await result.json()) as Record<string, unknown>[])[0]!;
}

describe('query parameters written into the statement', () => {
  it('reads any string back as it was, alone and in an array', async () => {
    await fc.assert(
      fc.asyncProperty(fc.string({ unit: 'binary', maxLength: 40 }), fc.array(fc.string({ unit: 'grapheme-composite', maxLength: 8 }), { maxLength: 4 }), async (text, list) => {
        const query = 'SELECT {text:String} AS text, {list:Array(String)} AS list, toString(length({text:String})) AS bytes';
        expect(inlineQueryParams(query, { text, list })).not.toContain('{text:');
        const row = await firstRow(query, { text, list });
        // Lone surrogates have no UTF-8 form: they go over as U+FFFD whichever way the value travels.
        const asUtf8 = (s: string) => Buffer.from(s, 'utf8').toString('utf8');
        expect(row).toEqual({ text: asUtf8(text), list: list.map(asUtf8), bytes: String(Buffer.byteLength(text)) });
      }),
      { numRuns: 300 },
    );
  });

  it('keeps the placeholder types: integers bare, UUIDs and times cast', async () => {
    const query = `SELECT toTypeName({id:UUID}) AS id_type, {id:UUID} AS id, {ids:Array(UUID)} AS ids, {at:DateTime64(3)} AS at,
      toString({n:UInt32} + 1) AS next, toString({big:UInt64}) AS big FROM numbers(10) LIMIT {limit:UInt32} OFFSET {offset:UInt64}`;
    const params = { id: '00000000-0000-4000-8000-000000000001', ids: [], at: '2026-01-02 03:04:05.678', n: 41, big: 18_000_000_000_000_000_000n, limit: 1, offset: 3 };
    const rendered = inlineQueryParams(query, params)!;
    expect(rendered).toContain('LIMIT 1 OFFSET 3');
    expect(await firstRow(query, params)).toEqual({
      id_type: 'UUID',
      id: params.id,
      ids: [],
      at: '2026-01-02 03:04:05.678',
      next: '42',
      big: '18000000000000000000',
    });
  });

  it('leaves values it does not write to the engine to bind', async () => {
    expect(inlineQueryParams('SELECT {a:Nullable(String)}', { a: null })).toBeNull();
    expect(inlineQueryParams('SELECT {a:Float64}', { a: 1.5 })).toBeNull();
    expect(inlineQueryParams('SELECT {a:String}, {b:Map(String, String)}', { a: 'x', b: { k: 'v' } })).toBeNull();
    expect(inlineQueryParams('SELECT * FROM {t:Identifier}', { t: 'events' })).toBeNull();
    // Bound by the engine, they still answer.
    expect(await firstRow('SELECT {a:Nullable(String)} AS a, {f:Float64} AS f', { a: null, f: 1.5 })).toEqual({ a: null, f: 1.5 });
  });

  it('writes nothing into a placeholder it has no value for', () => {
    expect(inlineQueryParams("SELECT {a:String}, '{b:String}'", { a: "it's" })).toBe("SELECT 'it\\x27s', '{b:String}'");
  });
});
