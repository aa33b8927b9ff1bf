// Replacing and deleting events rows in place (clickhouse/tables/events.ts,
// migration 036): the values a statement carries come back exactly, the
// promoted columns and the field index follow them, no row is added, and
// folding the patches changes nothing a read sees.
import { describe, expect, it } from 'vitest';
import { useTestStore } from '../test/helpers/store.js';
import { SqlParams } from './sql.js';
import { deleteEventsStatement, eventFieldCondition, foldEventPatches, insertEvents, LARGE_STATEMENT_SETTINGS, replaceEventsStatement, type EventReplacement } from './tables/events.js';

const ORG = 'replace-org';
const ids = ['0190a1b2-0000-7000-8000-000000000001', '0190a1b2-0000-7000-8000-000000000002', '0190a1b2-0000-7000-8000-000000000003'];
// Recent: rows older than the retention (90 days by created_at) would leave at the first merge.
const BASE = Date.now() - 60_000;
const at = (i: number) => BASE + i;

describe('events replaced in place', () => {
  const t = useTestStore('event-replacement');

  async function stored() {
    const result = await t.store.query({
      query: `SELECT artifact_id AS id, parser, toUnixTimestamp64Milli(event_time) AS e, fields, f_source_ip FROM events WHERE org_id = {org:String} ORDER BY artifact_id`,
      query_params: { org: ORG },
      format: 'JSONEachRow',
    });
    // 64-bit integers come as numbers from the embedded engine and quoted from a server: read either way.
    return (await result.json<{ id: string; parser: string; e: string | number | null; fields: Record<string, string[]>; f_source_ip: string[] }>()).map((r) => ({
      ...r,
      e: r.e === null ? null : Number(r.e),
      fields: JSON.stringify(r.fields),
    }));
  }

  async function matching(field: string, value: string): Promise<number> {
    const params = new SqlParams();
    const condition = eventFieldCondition(field, { lambda: null, equals: value.toLowerCase() }, params);
    const result = await t.store.query({ query: `SELECT count() AS n FROM events WHERE org_id = '${ORG}' AND ${condition}`, query_params: params.values, format: 'JSONEachRow' });
    return Number((await result.json<{ n: string }>())[0]!.n);
  }

  it('gives rows their new parser, time and fields, whatever the text, and deletes rows, without adding one', async () => {
    await insertEvents(
      t.store,
      ids.map((id, i) => ({
        artifact_id: id,
        org_id: ORG,
        source: 'auth',
        timestamp: new Date(at(i)).toISOString(),
        parser: 'legacy',
        fields: { message: `line ${i}`, 'source.ip': '10.0.0.1' },
        created_at: new Date(at(i)).toISOString(),
      })),
    );
    const tricky = `quote ' double " back \\ slash \\' newline \n tab \t nul \u0000 unicode é 日本 😀 {braces} {p0:String}`;
    const replacements: EventReplacement[] = [
      {
        artifact_id: ids[0]!,
        org_id: ORG,
        timestamp: at(0),
        parser: 'syslog-auth',
        event_time: at(0) - 5000,
        fields: { message: [tricky], 'source.ip': ['192.0.2.7'], 'event.category': ['authentication', 'session'], __proto__: ['kept as a key'], empty: [] },
      },
      { artifact_id: ids[1]!, org_id: ORG, timestamp: at(1), parser: 'generic', event_time: null, fields: { 'source.ip': ['192.0.2.8'] } },
    ];
    // The JSON text of an own "__proto__" key: an object literal would set the prototype instead.
    Object.defineProperty(replacements[0]!.fields, '__proto__', { value: ['kept as a key'], enumerable: true });
    expect(await matching('source.ip', '10.0.0.1')).toBe(3);

    await t.store.command({ query: replaceEventsStatement(replacements), clickhouse_settings: LARGE_STATEMENT_SETTINGS });
    await t.store.command({ query: deleteEventsStatement([{ artifact_id: ids[2]!, org_id: ORG, timestamp: at(2) }]) });

    const expected = [
      { id: ids[0], parser: 'syslog-auth', e: at(0) - 5000, fields: JSON.stringify(replacements[0]!.fields), f_source_ip: ['192.0.2.7'] },
      { id: ids[1], parser: 'generic', e: null, fields: JSON.stringify({ 'source.ip': ['192.0.2.8'] }), f_source_ip: ['192.0.2.8'] },
    ];
    expect(await stored()).toEqual(expected);
    expect(await matching('source.ip', '10.0.0.1')).toBe(0);
    expect(await matching('source.ip', '192.0.2.7')).toBe(1);
    expect(await matching('event.category', 'session')).toBe(1);

    // Folded into the parts, the rows read the same.
    await foldEventPatches(t.store, [...new Set(ids.map((_, i) => new Date(at(i)).toISOString().slice(0, 10).replaceAll('-', '')))]);
    await expect
      .poll(async () => {
        const result = await t.store.query({ query: `SELECT count() AS n FROM system.mutations WHERE database = currentDatabase() AND table = 'events' AND NOT is_done`, format: 'JSONEachRow' });
        return Number((await result.json<{ n: string }>())[0]!.n);
      }, { timeout: 30_000 })
      .toBe(0);
    expect(await stored()).toEqual(expected);
    expect(await matching('source.ip', '192.0.2.8')).toBe(1);
  });
});
