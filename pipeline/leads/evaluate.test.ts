// The rule step on real hot state (the local journal and Redis): ordered
// sequences, first-seen values and suppression, batch by batch as the stage
// runs them, including restarts and batches that arrive out of order.
import { randomUUID } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, inject, it } from 'vitest';
import type { LeadRule, LeadRuleConditions } from '../../clickhouse/tables/lead-rules.js';
import type { EnrichedEvent } from '../../topics/index.js';
import { LocalState } from '../state/local-state.js';
import { RedisState } from '../state/redis-state.js';
import type { HotState } from '../state/types.js';
import { evaluateMatches, findMatches, type Firing } from './evaluate.js';
import { describeFiring } from './firing-records.js';
import { compileRule, type CompiledRule } from './rules.js';
import { suppressedCounts } from './suppress.js';

type Kind = 'local' | 'redis';

const opened: HotState[] = [];
afterEach(async () => {
  for (const s of opened.splice(0)) await s.close();
});

/** A hot state at `where` (a folder or a Redis prefix): opening the same place again is a restart. */
async function openState(kind: Kind, where: string): Promise<HotState> {
  const state = kind === 'local' ? await LocalState.open(path.join(where, 'state.journal')) : new RedisState(inject('redisUrl'), `${where}:`);
  opened.push(state);
  return state;
}

function newPlace(kind: Kind): string {
  return kind === 'local' ? fs.mkdtempSync(path.join(os.tmpdir(), 'cairn-rules-')) : `test-rules-${randomUUID().slice(0, 8)}`;
}

async function restart(kind: Kind, state: HotState, where: string): Promise<HotState> {
  await state.close();
  opened.splice(opened.indexOf(state), 1);
  return openState(kind, where);
}

function leadRule(conditions: LeadRuleConditions, name = 'test rule'): CompiledRule {
  const now = new Date().toISOString();
  const rule: LeadRule = { id: randomUUID(), org_id: 'org-a', name, description: '', enabled: true, conditions, severity: 'high', tags: [], origin: null, created_at: now, updated_at: now };
  return compileRule(rule);
}

/** An sshd-like event at `time` (ISO, UTC) with these fields. */
function event(time: string, fields: Record<string, string>): EnrichedEvent {
  return {
    artifact_id: randomUUID(),
    org_id: 'org-a',
    source: 'auth',
    timestamp: time,
    received_at: time,
    parser: 'test',
    raw: Object.entries(fields).map(([k, v]) => `${k}=${v}`).join(' '),
    fields: { '@timestamp': time, 'event.category': 'authentication', ...fields },
    entities: [{ id: randomUUID(), type: 'IP', value: fields['source.ip'] ?? '0.0.0.0', role: 'source.ip' }],
  };
}

const failure = (time: string, ip: string, user = 'root') => event(time, { 'event.outcome': 'failure', 'source.ip': ip, 'user.name': user });
const success = (time: string, ip: string, user = 'root') => event(time, { 'event.outcome': 'success', 'source.ip': ip, 'user.name': user });
const at = (hhmm: string, day = '2026-03-10') => `${day}T${hhmm}:00.000Z`;

/** One batch through the rule step, as the stage does it: match, evaluate, write (here: keep), remember. */
async function batch(state: HotState, rule: CompiledRule, events: EnrichedEvent[], { commit = true } = {}): Promise<Firing[]> {
  const evaluation = await evaluateMatches(findMatches(events, () => [rule]), state);
  if (commit) await evaluation.markEmitted();
  return evaluation.firings;
}

describe.each<Kind>(['local', 'redis'])('lead rule conditions on %s hot state', (kind) => {
  describe('ordered sequences: failures then a success from one address within 10 minutes', () => {
    const conditions: LeadRuleConditions = {
      pattern: 'event.category:authentication',
      sequence: ['event.outcome:failure', 'event.outcome:success'],
      ordered: true,
      window: '10m',
      group_by: 'source.ip',
    };

    it('fires when the steps come in order of event time, arriving in order', async () => {
      const state = await openState(kind, newPlace(kind));
      const rule = leadRule(conditions, 'failures then success');
      const a = failure(at('10:00'), '192.0.2.1');
      const b = success(at('10:04'), '192.0.2.1');
      expect(await batch(state, rule, [a])).toEqual([]);
      const fired = await batch(state, rule, [b]);
      expect(fired).toHaveLength(1);
      expect(fired[0]!.group).toBe('192.0.2.1');
      expect(fired[0]!.artifactIds.sort()).toEqual([a.artifact_id, b.artifact_id].sort());
      expect(fired[0]!.nodeIds.sort()).toEqual([...a.entities, ...b.entities].map((e) => e.id).sort());
      expect(fired[0]!.firstSeen).toBe(Date.parse(at('10:00')));
      expect(fired[0]!.lastSeen).toBe(Date.parse(at('10:04')));
      expect(describeFiring(fired[0]!)).toContain('matched in order for source.ip 192.0.2.1 within 10m');
      // The same events again (a replay) raise nothing new.
      expect(await batch(state, rule, [a, b])).toEqual([]);
    });

    it('fires when the later step arrives first (out of order arrival), in another batch or the same', async () => {
      const state = await openState(kind, newPlace(kind));
      const rule = leadRule(conditions);
      const b = success(at('10:04'), '192.0.2.2');
      const a = failure(at('10:00'), '192.0.2.2');
      expect(await batch(state, rule, [b])).toEqual([]);
      const fired = await batch(state, rule, [a]);
      expect(fired).toHaveLength(1);
      expect(fired[0]!.artifactIds.sort()).toEqual([a.artifact_id, b.artifact_id].sort());

      const sameBatch = leadRule(conditions);
      expect(await batch(state, sameBatch, [success(at('11:04'), '192.0.2.2'), failure(at('11:00'), '192.0.2.2')])).toHaveLength(1);
    });

    it('does not fire when the later step happened first in event time, whichever arrives first', async () => {
      const state = await openState(kind, newPlace(kind));
      for (const arrival of ['in order', 'reversed']) {
        const rule = leadRule(conditions);
        const events = [success(at('10:00'), '192.0.2.3'), failure(at('10:04'), '192.0.2.3')];
        if (arrival === 'reversed') events.reverse();
        expect(await batch(state, rule, [events[0]!]), arrival).toEqual([]);
        expect(await batch(state, rule, [events[1]!]), arrival).toEqual([]);
      }
    });

    it.each([
      ['in order', false],
      ['the later step first', true],
    ])('holds the window both ways, arriving %s: inside fires, past it does not', async (_arrival, reversed) => {
      const state = await openState(kind, newPlace(kind));
      const cases = [
        { a: '10:00', b: '10:10', fires: true }, // exactly the window
        { a: '10:08', b: '10:13', fires: true }, // across a 10-minute boundary: the window slides
        { a: '10:00', b: '10:10:01', fires: false },
        { a: '09:00', b: '10:00', fires: false },
      ];
      for (const c of cases) {
        const rule = leadRule(conditions);
        const bTime = c.b.length > 5 ? `2026-03-10T${c.b}.000Z` : at(c.b);
        const pair = [failure(at(c.a), '198.51.100.1'), success(bTime, '198.51.100.1')];
        if (reversed) pair.reverse();
        await batch(state, rule, [pair[0]!]);
        expect((await batch(state, rule, [pair[1]!])).length, `${c.a} then ${c.b}`).toBe(c.fires ? 1 : 0);
      }
    });

    it('keeps groups apart, and needs a distinct event per step', async () => {
      const state = await openState(kind, newPlace(kind));
      const rule = leadRule(conditions);
      expect(await batch(state, rule, [failure(at('10:00'), '192.0.2.10'), success(at('10:01'), '192.0.2.11')])).toEqual([]);
      // One event matching both patterns completes nothing alone.
      const both = leadRule({ ...conditions, sequence: ['user.name:root', 'event.outcome:success'] });
      expect(await batch(state, both, [success(at('10:00'), '192.0.2.12')])).toEqual([]);
      expect(await batch(state, both, [success(at('10:01'), '192.0.2.12')])).toHaveLength(1);
    });

    it('follows three steps in order, and joins completions in one window into one firing', async () => {
      const state = await openState(kind, newPlace(kind));
      const rule = leadRule({ ...conditions, sequence: ['event.outcome:failure', 'event.outcome:success', 'user.name:admin'], window: '1h' });
      const ip = '203.0.113.5';
      // success, then failure, then admin: not in order.
      expect(await batch(state, rule, [success(at('10:00'), ip, 'x'), failure(at('10:05'), ip, 'x'), failure(at('10:06'), ip, 'admin')])).toEqual([]);
      // A success after the failure completes failure → success → admin only with an admin event after it.
      expect(await batch(state, rule, [success(at('10:10'), ip, 'x')])).toEqual([]);
      const fired = await batch(state, rule, [failure(at('10:20'), ip, 'admin')]);
      expect(fired).toHaveLength(1);
      expect(fired[0]!.distinct).toBe(1);
      // A second completion in the same hour updates the same firing.
      const again = await batch(state, rule, [failure(at('10:30'), ip, 'admin')]);
      expect(again.map((f) => [f.id, f.distinct])).toEqual([[fired[0]!.id, 2]]);
    });

    it('completes after a restart with the earlier step held in hot state', async () => {
      const where = newPlace(kind);
      let state = await openState(kind, where);
      const rule = leadRule(conditions);
      await batch(state, rule, [failure(at('10:00'), '192.0.2.20')]);
      state = await restart(kind, state, where);
      expect(await batch(state, rule, [success(at('10:03'), '192.0.2.20')])).toHaveLength(1);
    });
  });

  describe('first seen: a source address new for the account in 30 days', () => {
    const conditions: LeadRuleConditions = { pattern: 'event.outcome:success', first_seen: { field: 'source.ip', days: 30 }, group_by: 'user.name' };
    const day = (n: number) => new Date(Date.parse('2026-01-01T12:00:00Z') + n * 86_400_000).toISOString();

    it('fires for a value new to its group, remembers it 30 days of event time, per group', async () => {
      const state = await openState(kind, newPlace(kind));
      const rule = leadRule(conditions, 'new address for account');
      const first = await batch(state, rule, [success(day(0), '192.0.2.1', 'alice')]);
      expect(first).toHaveLength(1);
      expect(first[0]).toMatchObject({ group: 'alice', value: '192.0.2.1' });
      expect(describeFiring(first[0]!)).toContain('source.ip 192.0.2.1 seen for user.name alice for the first time in 30 days');
      expect(await batch(state, rule, [success(day(29), '192.0.2.1', 'alice')])).toEqual([]); // within 30 days
      expect(await batch(state, rule, [success(day(29), '192.0.2.1', 'bob')])).toHaveLength(1); // another group
      expect(await batch(state, rule, [success(day(59), '192.0.2.1', 'alice')])).toEqual([]); // 30 days after day 29
      expect(await batch(state, rule, [success(day(89.5), '192.0.2.1', 'alice')])).toHaveLength(1); // 30.5 days after
      expect(await batch(state, rule, [success(day(90), '192.0.2.1', 'alice')])).toEqual([]);
      expect(await batch(state, rule, [failure(day(91), '192.0.2.99', 'alice')])).toEqual([]); // not the pattern
    });

    it('fires once for a value new twice in one batch, and not for a late event of a value already reported', async () => {
      const state = await openState(kind, newPlace(kind));
      const rule = leadRule(conditions);
      const fired = await batch(state, rule, [success(day(1), '192.0.2.2', 'carol'), success(day(0.5), '192.0.2.2', 'carol')]);
      expect(fired.map((f) => f.firstSeen)).toEqual([Date.parse(day(0.5))]);
      expect(await batch(state, rule, [success(day(0.2), '192.0.2.2', 'carol')])).toEqual([]);
    });

    it('remembers across a restart, and a batch retried before its firings were written fires again the same', async () => {
      const where = newPlace(kind);
      let state = await openState(kind, where);
      const rule = leadRule(conditions);
      const login = success(day(0), '198.51.100.7', 'dave');
      const attempt = await batch(state, rule, [login], { commit: false }); // the process died before writing
      const retried = await batch(state, rule, [login]);
      expect(retried.map((f) => f.id)).toEqual(attempt.map((f) => f.id));
      expect(retried).toHaveLength(1);
      state = await restart(kind, state, where);
      expect(await batch(state, rule, [login])).toEqual([]); // a replay
      expect(await batch(state, rule, [success(day(10), '198.51.100.7', 'dave')])).toEqual([]);
      expect(await batch(state, rule, [success(day(10), '198.51.100.8', 'dave')])).toHaveLength(1);
    });

    it('treats the whole rule as one group without group_by', async () => {
      const state = await openState(kind, newPlace(kind));
      const rule = leadRule({ pattern: 'event.outcome:success', first_seen: { field: 'user.name', days: 7 } });
      expect(await batch(state, rule, [success(day(0), '192.0.2.1', 'erin'), success(day(0), '192.0.2.2', 'erin'), success(day(0), '192.0.2.3', 'frank')])).toHaveLength(2);
    });
  });

  describe('suppression per rule and group', () => {
    it('raises one firing per group and period, counts the ones it held back, and still updates a raised window', async () => {
      const state = await openState(kind, newPlace(kind));
      const rule = leadRule({ pattern: 'event.outcome:failure', group_by: 'source.ip', suppress: '1h' });
      const times = ['10:00', '10:20', '10:50', '11:05', '11:30'];
      const fired = await batch(state, rule, [...times.map((t) => failure(at(t), '192.0.2.1')), failure(at('10:10'), '192.0.2.2')]);
      expect(fired.map((f) => `${f.group} ${new Date(f.firstSeen).toISOString().slice(11, 16)}`).sort()).toEqual(['192.0.2.1 10:00', '192.0.2.1 11:05', '192.0.2.2 10:10']);
      // Later batches, in event time on either side of a raised firing, are held back too.
      expect(await batch(state, rule, [failure(at('09:30'), '192.0.2.2'), failure(at('10:40'), '192.0.2.2')])).toEqual([]);
      expect(await batch(state, rule, [failure(at('08:00'), '192.0.2.2')])).toHaveLength(1);
      const today = new Date().toISOString().slice(0, 10);
      expect(await suppressedCounts(state, rule.rule.id, [today])).toEqual([5]);

      const windowed = leadRule({ pattern: 'event.outcome:failure', group_by: 'source.ip', threshold: 2, window: '5m', suppress: '1h' });
      const first = await batch(state, windowed, [failure(at('10:00'), '192.0.2.3'), failure(at('10:01'), '192.0.2.3')]);
      expect(first).toHaveLength(1);
      // The raised window grows: its update passes. The next windows in the hour do not fire.
      const grown = await batch(state, windowed, [failure(at('10:02'), '192.0.2.3'), failure(at('10:06'), '192.0.2.3'), failure(at('10:07'), '192.0.2.3')]);
      expect(grown.map((f) => [f.id, f.count])).toEqual([[first[0]!.id, 3]]);
      expect(await batch(state, windowed, [failure(at('11:00'), '192.0.2.3'), failure(at('11:01'), '192.0.2.3')])).toHaveLength(1);
    });

    it('keeps the leads of a group a period apart whatever order their firings arrive in', async () => {
      const state = await openState(kind, newPlace(kind));
      const rule = leadRule({ pattern: 'event.outcome:failure', group_by: 'source.ip', suppress: '1h' });
      expect(await batch(state, rule, [failure(at('12:00'), '192.0.2.4')])).toHaveLength(1);
      expect(await batch(state, rule, [failure(at('10:00'), '192.0.2.4')])).toHaveLength(1);
      // Within an hour of 10:00, though further from 12:00.
      expect(await batch(state, rule, [failure(at('10:30'), '192.0.2.4'), failure(at('11:30'), '192.0.2.4')])).toEqual([]);
      expect(await batch(state, rule, [failure(at('11:00'), '192.0.2.4'), failure(at('12:30'), '192.0.2.4')])).toHaveLength(1); // 11:00 is an hour from both
    });

    it('keeps its period across a restart', async () => {
      const where = newPlace(kind);
      let state = await openState(kind, where);
      const rule = leadRule({ pattern: 'event.outcome:failure', group_by: 'source.ip', suppress: '30m' });
      expect(await batch(state, rule, [failure(at('10:00'), '192.0.2.9')])).toHaveLength(1);
      state = await restart(kind, state, where);
      expect(await batch(state, rule, [failure(at('10:15'), '192.0.2.9')])).toEqual([]);
      expect(await batch(state, rule, [failure(at('10:45'), '192.0.2.9')])).toHaveLength(1);
    });
  });
});
