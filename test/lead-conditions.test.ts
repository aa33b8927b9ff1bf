// Ordered sequences, first-seen values and suppression end to end: rules
// created through the API, sshd lines ingested, the rule stage (fused and
// staged) on the embedded bus and state, and on Kafka and Redis; what each
// rule raised counted from the lines themselves.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApi, type TestApi } from './helpers/api.js';
import { eventually } from './helpers/buses.js';
import { ALL_STAGES, FUSED_STAGES, drained, get, ingestLines, orgOf } from './helpers/pipeline.js';

interface Observation {
  id: string;
  rule_id: string | null;
  artifact_ids: string[];
  description: string;
}
interface Lead {
  group_value: string;
  first_seen: string;
}

const line = (time: string, text: string) => `${time} bastion sshd[4242]: ${text}`;
const failed = (time: string, ip: string, user = 'root') => line(time, `Failed password for ${user} from ${ip} port 50022 ssh2`);
const accepted = (time: string, ip: string, user = 'root') => line(time, `Accepted password for ${user} from ${ip} port 50022 ssh2`);

describe.each([
  ['embedded', 'fused'],
  ['distributed', 'staged'],
] as const)('ordered, first_seen and suppress rules, %s bus and state, %s stages', (mode, topology) => {
  const distributed = mode === 'distributed';
  const stages = topology === 'fused' ? FUSED_STAGES : ALL_STAGES;
  let api: TestApi;

  beforeAll(async () => {
    api = await startTestApi({ distributed, stages });
  }, 120_000);
  afterAll(async () => {
    await api?.close();
  });

  async function createRule(token: string, name: string, conditions: Record<string, unknown>): Promise<string> {
    const res = await api.request('POST', '/api/v1/lead-rules', { token, body: { name, severity: 'high', conditions: { source: 'auth', ...conditions } } });
    expect(res.status, res.text).toBe(201);
    return (res.body.data as { id: string }).id;
  }

  /** Ingests each list in its own request and waits for every stage in between, so they arrive in that order. */
  async function ingestInTurn(token: string, ...batches: string[][]): Promise<void> {
    for (const lines of batches) {
      await ingestLines(api, token, lines);
      await drained(api);
    }
  }

  /** The rule's leads, read from the store (the API shows them through incidents). */
  async function leadsOf(token: string, ruleId: string): Promise<Lead[]> {
    const result = await api.runtime.store.query({
      query: `SELECT group_value, toString(first_seen) AS first_seen FROM leads FINAL WHERE org_id = {orgId:String} AND rule_id = {ruleId:UUID}`,
      query_params: { orgId: orgOf(token), ruleId },
      format: 'JSONEachRow',
    });
    return result.json<Lead>();
  }

  async function observationsOf(token: string, ruleId: string): Promise<Observation[]> {
    const { observations } = await get<{ observations: Observation[] }>(api, token, '/api/v1/observations?limit=1000');
    return observations.filter((o) => o.rule_id === ruleId);
  }

  it('fires an ordered sequence only for failures then a success within 10 minutes, whatever order the lines arrive in', async () => {
    const token = api.token();
    const id = await createRule(token, 'failures then success', {
      pattern: 'event.category:authentication',
      sequence: ['event.outcome:failure', 'event.outcome:success'],
      ordered: true,
      window: '10m',
      group_by: 'source.ip',
    });
    const scenarios = {
      // In order, within the window.
      '192.0.2.1': { first: [failed('2026-03-10T10:00:00Z', '192.0.2.1'), failed('2026-03-10T10:01:00Z', '192.0.2.1')], then: [accepted('2026-03-10T10:04:00Z', '192.0.2.1')], fires: true },
      // The success arrives first, but happened after the failures: still fires.
      '192.0.2.2': { first: [accepted('2026-03-10T10:09:00Z', '192.0.2.2')], then: [failed('2026-03-10T10:02:00Z', '192.0.2.2')], fires: true },
      // Across a 10-minute boundary: the window slides.
      '192.0.2.3': { first: [failed('2026-03-10T10:08:00Z', '192.0.2.3')], then: [accepted('2026-03-10T10:13:00Z', '192.0.2.3')], fires: true },
      // The success happened before the failures: no.
      '192.0.2.4': { first: [accepted('2026-03-10T10:00:00Z', '192.0.2.4')], then: [failed('2026-03-10T10:03:00Z', '192.0.2.4')], fires: false },
      // Past the window, arriving in order and the other way round: no.
      '192.0.2.5': { first: [failed('2026-03-10T10:00:00Z', '192.0.2.5')], then: [accepted('2026-03-10T10:11:00Z', '192.0.2.5')], fires: false },
      '192.0.2.6': { first: [accepted('2026-03-10T10:11:00Z', '192.0.2.6')], then: [failed('2026-03-10T10:00:00Z', '192.0.2.6')], fires: false },
      // Failures from one address, the success from another: no.
      '192.0.2.7': { first: [failed('2026-03-10T10:00:00Z', '192.0.2.7')], then: [accepted('2026-03-10T10:01:00Z', '192.0.2.8')], fires: false },
    };
    const entries = Object.entries(scenarios);
    await ingestInTurn(
      token,
      entries.flatMap(([, s]) => s.first),
      entries.flatMap(([, s]) => s.then),
    );
    const expected = entries.filter(([, s]) => s.fires).map(([ip]) => ip);
    const leads = await eventually(async () => {
      const found = await leadsOf(token, id);
      expect(found.map((l) => l.group_value).sort()).toEqual(expected);
      return found;
    });
    expect(leads).toHaveLength(3);
    const observations = await observationsOf(token, id);
    for (const [ip, s] of entries.filter(([, s]) => s.fires)) {
      const observation = observations.find((o) => o.description.includes(`source.ip ${ip} `))!;
      expect(observation, ip).toBeDefined();
      expect(observation.artifact_ids, ip).toHaveLength(s.first.length + s.then.length);
    }
    // The same lines again raise nothing new.
    await ingestInTurn(token, entries.flatMap(([, s]) => [...s.first, ...s.then]));
    expect(await leadsOf(token, id)).toHaveLength(3);
  });

  it('fires first_seen for an address new to an account in 30 days, and keeps that memory across a restart', async () => {
    const token = api.token();
    const id = await createRule(token, 'new address for account', { pattern: 'event.outcome:success', first_seen: { field: 'source.ip', days: 30 }, group_by: 'user.name' });
    // One request each: lines of one request may reach the stage in any order over several partitions, and the
    // first of a value's lines to arrive is the one that fires.
    await ingestInTurn(
      token,
      [accepted('2026-03-01T10:00:00Z', '198.51.100.1', 'alice')], // new: fires
      [accepted('2026-03-20T10:00:00Z', '198.51.100.1', 'alice')], // 19 days later: known
      [accepted('2026-03-02T10:00:00Z', '198.51.100.1', 'bob'), failed('2026-03-03T10:00:00Z', '198.51.100.9', 'bob')], // new for bob: fires; a failure does not count
      [accepted('2026-04-25T10:00:00Z', '198.51.100.1', 'alice')], // 36 days after the last sighting: fires
    );
    const want = ['alice 2026-03-01', 'alice 2026-04-25', 'bob 2026-03-02'];
    const firings = async () => (await leadsOf(token, id)).map((l) => `${l.group_value} ${l.first_seen.slice(0, 10)}`).sort();
    await eventually(async () => expect(await firings()).toEqual(want));

    // The whole process goes away; the memory comes back from the journal or Redis.
    const dataDir = api.dataDir;
    await api.close();
    api = await startTestApi({ distributed, stages, dataDir });
    await ingestInTurn(token, [accepted('2026-05-01T10:00:00Z', '198.51.100.1', 'alice'), accepted('2026-03-25T11:00:00Z', '198.51.100.1', 'bob')]);
    expect(await firings()).toEqual(want);
    await ingestInTurn(token, [accepted('2026-05-02T10:00:00Z', '203.0.113.50', 'alice')]);
    await eventually(async () => expect(await firings()).toEqual([...want.slice(0, 2), 'alice 2026-05-02', want[2]]));
  });

  it('suppresses a group for an hour after it fired, counts what it held back, and shows both per day', async () => {
    const token = api.token();
    const id = await createRule(token, 'each failure, quietly', { pattern: '"Failed password"', group_by: 'source.ip', suppress: '1h' });
    const lines = [
      ...['10:00', '10:10', '10:30', '11:10', '11:20'].map((t) => failed(`2026-03-11T${t}:00Z`, '203.0.113.7')),
      failed('2026-03-11T10:05:00Z', '203.0.113.8'),
    ];
    // One at a time: which firing of a busy hour is raised depends on what arrives first.
    await ingestInTurn(token, ...lines.map((l) => [l]));
    // Counted from the lines: 203.0.113.7 at 10:00 and 11:10 (70 minutes later), 203.0.113.8 once; three held back.
    const want = ['203.0.113.7 10:00', '203.0.113.7 11:10', '203.0.113.8 10:05'];
    await eventually(async () => expect((await leadsOf(token, id)).map((l) => `${l.group_value} ${l.first_seen.slice(11, 16)}`).sort()).toEqual(want));
    const rule = await get<{ firings_by_day: { day: string; count: number; suppressed: number }[] }>(api, token, `/api/v1/lead-rules/${id}`);
    expect(rule.firings_by_day.at(-1)).toEqual({ day: new Date().toISOString().slice(0, 10), count: 3, suppressed: 3 });
    expect(rule.firings_by_day.slice(0, -1).every((d) => d.count === 0 && d.suppressed === 0)).toBe(true);
  });
});
