// The hot-state contract, proven against Redis and the in-process journal.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { inject } from 'vitest';
import { LocalState } from '../pipeline/state/local-state.js';
import { RedisState } from '../pipeline/state/redis-state.js';
import type { HotState } from '../pipeline/state/types.js';
import { uniqueName } from './helpers/buses.js';

type Kind = 'local' | 'redis';

const opened: HotState[] = [];
afterEach(async () => {
  for (const s of opened.splice(0)) await s.close();
});

async function openState(kind: Kind, where = kind === 'local' ? fs.mkdtempSync(path.join(os.tmpdir(), 'cairn-state-')) : uniqueName('test')): Promise<HotState> {
  const state = kind === 'local' ? await LocalState.open(path.join(where, 'state.journal')) : new RedisState(inject('redisUrl'), `${where}:`);
  opened.push(state);
  return state;
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

describe.each<Kind>(['local', 'redis'])('hot state contract: %s', (kind) => {
  it('sets, gets and deletes values', async () => {
    const state = await openState(kind);
    expect(await state.get('a')).toBeNull();
    await state.set('a', 'one');
    expect(await state.get('a')).toBe('one');
    await state.set('a', 'two');
    expect(await state.get('a')).toBe('two');
    await state.delete('a');
    expect(await state.get('a')).toBeNull();
  });

  it('expires values after their ttl', async () => {
    const state = await openState(kind);
    await state.set('short', 'x', 150);
    expect(await state.get('short')).toBe('x');
    await sleep(300);
    expect(await state.get('short')).toBeNull();
  });

  it('sets a value only when absent', async () => {
    const state = await openState(kind);
    const results = await Promise.all([state.setIfAbsent('once', 'a', 10_000), state.setIfAbsent('once', 'b', 10_000)]);
    expect(results.filter(Boolean)).toHaveLength(1);
    expect(await state.get('once')).toBe(results[0] ? 'a' : 'b');
    expect(await state.setIfAbsent('once', 'c')).toBe(false);
  });

  it('increments integers from zero', async () => {
    const state = await openState(kind);
    expect(await state.increment('n')).toBe(1);
    expect(await state.increment('n', 5)).toBe(6);
    expect(await state.get('n')).toBe('6');
  });

  it('keeps time windows: idempotent adds, ranges oldest first, trims', async () => {
    const state = await openState(kind);
    await state.windowAdd('w', 'e1', 1000);
    await state.windowAdd('w', 'e3', 3000);
    await state.windowAdd('w', 'e2', 2000);
    await state.windowAdd('w', 'e2', 2000); // replayed: still one member
    expect(await state.windowMembers('w', 0, 10_000)).toEqual(['e1', 'e2', 'e3']);
    expect(await state.windowMembers('w', 1500, 3000)).toEqual(['e2', 'e3']);
    expect(await state.windowMembers('w', -Infinity, Infinity)).toEqual(['e1', 'e2', 'e3']);
    await state.windowTrim('w', 2500);
    expect(await state.windowMembers('w', 0, 10_000)).toEqual(['e3']);
    expect(await state.windowMembers('missing', 0, 10_000)).toEqual([]);
    expect(await state.windowStats('w')).toEqual({ count: 1, first: 3000, last: 3000 });
    await state.windowAdd('w', 'e0', 500);
    expect(await state.windowStats('w')).toEqual({ count: 2, first: 500, last: 3000 });
    expect(await state.windowStats('missing')).toBeNull();
  });

  it('reads window members with their times, a range at a time, and one member by name', async () => {
    const state = await openState(kind);
    for (const [member, at] of [['b', 2000], ['a', 2000], ['c', 3000], ['z', 500]] as const) await state.windowAdd('w', member, at);
    // Equal times order by member.
    expect(await state.windowEntries('w', 1000, 3000)).toEqual([{ member: 'a', at: 2000 }, { member: 'b', at: 2000 }, { member: 'c', at: 3000 }]);
    expect(await state.windowEntries('w', -Infinity, Infinity, 2)).toEqual([{ member: 'z', at: 500 }, { member: 'a', at: 2000 }]);
    expect(await state.windowEntries('missing', 0, 10_000, 5)).toEqual([]);
    expect(await state.windowTime('w', 'c')).toBe(3000);
    expect(await state.windowTime('w', 'y')).toBeNull();
    expect(await state.windowTime('missing', 'c')).toBeNull();
    await state.windowAdd('w', 'c', 1500); // moved
    expect(await state.windowTime('w', 'c')).toBe(1500);
  });

  it('keeps what it acknowledged across a restart', async () => {
    const where = kind === 'local' ? fs.mkdtempSync(path.join(os.tmpdir(), 'cairn-state-')) : uniqueName('test');
    const first = await openState(kind, where);
    await first.set('fired', 'yes');
    await first.windowAdd('w', 'e1', 1000, 60_000);
    await first.increment('count', 3);
    await first.set('gone', 'soon', 100);
    await first.close();
    opened.splice(opened.indexOf(first), 1);
    await sleep(200);

    const second = await openState(kind, where);
    expect(await second.get('fired')).toBe('yes');
    expect(await second.windowMembers('w', 0, 2000)).toEqual(['e1']);
    expect(await second.get('count')).toBe('3');
    expect(await second.get('gone')).toBeNull();
  });
});

describe('local hot state journal', () => {
  it('compacts its journal and still restores the latest values', async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'cairn-state-'));
    const file = path.join(dir, 'state.journal');
    const state = await LocalState.open(file);
    for (let i = 0; i < 12_000; i++) await state.set(`k${i % 10}`, String(i));
    await state.close();
    expect(fs.statSync(file).size).toBeLessThan(12_000 * 30);
    const reopened = await LocalState.open(file);
    expect(await reopened.get('k9')).toBe('11999');
    expect(await reopened.get('k0')).toBe('11990');
    await reopened.close();
  });
});

describe('in-memory hot state on its own clock (a backfill evaluates windows in it, on event time)', () => {
  it('expires values and windows when its clock passes their ttl, whatever the wall clock says', async () => {
    let clock = Date.parse('2025-03-01T00:00:00Z');
    const state = LocalState.inMemory(() => clock);
    opened.push(state);
    await state.set('mark', 'x', 3_600_000);
    await state.windowAdd('w', 'e1', clock, 3_600_000);
    expect(await state.setIfAbsent('mark', 'y', 1000)).toBe(false);
    clock += 3_599_999;
    expect(await state.get('mark')).toBe('x');
    expect(await state.windowMembers('w', -Infinity, Infinity)).toEqual(['e1']);
    clock += 1;
    expect(await state.get('mark')).toBeNull();
    expect(await state.windowStats('w')).toBeNull();
    expect(await state.increment('n', 2, 10)).toBe(2);
    clock += 10;
    expect(await state.get('n')).toBeNull();
  });
});
