// The shipped rule pack through the API: its status, and an update from an
// older pack that brings unchanged rules up to date and leaves the ones a
// user changed or deleted alone (docs/rules.md).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { getLeadRule, type LeadRule } from '../../clickhouse/tables/lead-rules.js';
import { applyPackAtStart, packRuleId, shippedPack, updatePack, type Pack } from '../../rules/pack.js';
import { startTestApi, type TestApi } from '../helpers/api.js';
import { eventually } from '../helpers/buses.js';

let api: TestApi;
const pack = shippedPack();

interface RuleStatus {
  pack_id: string;
  state: string;
  rule_id: string | null;
  enabled: boolean | null;
  installed_version: string | null;
}
interface Status {
  version: string;
  counts: Record<string, number>;
  rules: RuleStatus[];
}
interface Update {
  version: string;
  dry_run: boolean;
  installed: string[];
  updated: string[];
  retired: string[];
  reset: string[];
  unchanged: number;
  left_alone: { pack_id: string; state: string; reason: string }[];
}

/** The pack an older cairn shipped: version 0.9.0, a lower brute-force threshold, one rule it did not have yet, one it had and this one retired. */
function olderPack(): Pack {
  const rules = pack.rules
    .filter((r) => r.id !== 'web-xss')
    .map((r) => (r.id === 'auth-brute-force' ? { ...r, conditions: { ...r.conditions, threshold: 5 } } : r));
  const retired = { ...pack.rules.find((r) => r.id === 'net-outbound-risky-port')!, id: 'net-outbound-telnet', name: 'Outbound Telnet' };
  return { version: '0.9.0', rules: [...rules, retired] };
}

async function status(token: string): Promise<Status> {
  const res = await api.request('GET', '/api/v1/lead-rules/pack', { token });
  expect(res.status).toBe(200);
  return res.body.data as Status;
}

async function update(token: string, body: unknown = {}): Promise<Update> {
  const res = await api.request('POST', '/api/v1/lead-rules/pack/update', { token, body });
  expect(res.status, res.body.message).toBe(200);
  return res.body.data as Update;
}

function stateOf(s: Status, packId: string): RuleStatus {
  return s.rules.find((r) => r.pack_id === packId)!;
}

async function stored(orgId: string, packId: string): Promise<LeadRule | null> {
  return getLeadRule(api.runtime.store, orgId, packRuleId(orgId, packId));
}

describe('the rule pack through the API', () => {
  beforeAll(async () => {
    api = await startTestApi();
  });
  afterAll(async () => {
    await api?.close();
  });

  it('lists every pack rule as new for an organization that has not installed it, and installs all of them', async () => {
    const token = api.token();
    const before = await status(token);
    expect(before.version).toBe(pack.version);
    expect(before.counts.new).toBe(pack.rules.length);
    const done = await update(token);
    expect(done.installed.sort()).toEqual(pack.rules.map((r) => r.id).sort());
    const after = await status(token);
    expect(after.counts).toMatchObject({ current: pack.rules.length, new: 0 });
    // They are lead rules like any other, marked as the pack's.
    const { rules } = (await api.request('GET', '/api/v1/lead-rules?limit=1000', { token })).body.data as { rules: LeadRule[] };
    expect(rules).toHaveLength(pack.rules.length);
    expect(rules.every((r) => r.origin?.format === 'pack' && r.origin.pack_version === pack.version)).toBe(true);
    expect(rules.find((r) => r.origin?.format === 'pack' && r.origin.pack_id === 'auth-brute-force')).toMatchObject({ enabled: true, severity: 'medium', tags: expect.arrayContaining(['attack.t1110']) });
  });

  it('updates what the user left unchanged, leaves what they changed or deleted, installs new rules and disables retired ones', async () => {
    const orgId = `org-pack-${Date.now()}`;
    const token = api.token('all', orgId);
    await updatePack(api.runtime.store, orgId, {}, olderPack());

    // The user tunes one rule, disables another, deletes a third.
    const id = (packId: string) => packRuleId(orgId, packId);
    expect((await api.request('PUT', `/api/v1/lead-rules/${id('auth-password-spraying')}`, { token, body: { conditions: { threshold: 8 } } })).status).toBe(200);
    expect((await api.request('PUT', `/api/v1/lead-rules/${id('auth-distributed-guessing')}`, { token, body: { enabled: false } })).status).toBe(200);
    expect((await api.request('DELETE', `/api/v1/lead-rules/${id('auth-unknown-accounts')}`, { token })).status).toBe(200);

    const before = await status(token);
    expect(stateOf(before, 'auth-brute-force')).toMatchObject({ state: 'outdated', installed_version: '0.9.0' });
    expect(stateOf(before, 'auth-password-spraying').state).toBe('modified');
    expect(stateOf(before, 'auth-distributed-guessing')).toMatchObject({ state: 'outdated', enabled: false });
    expect(stateOf(before, 'auth-unknown-accounts').state).toBe('deleted');
    expect(stateOf(before, 'web-xss').state).toBe('new');
    expect(stateOf(before, 'net-outbound-telnet')).toMatchObject({ state: 'retired', enabled: true });

    // A dry run says what would happen and writes nothing.
    const dry = await update(token, { dry_run: true });
    expect(dry).toMatchObject({ dry_run: true, installed: ['web-xss'], retired: ['net-outbound-telnet'] });
    expect((await stored(orgId, 'auth-brute-force'))!.conditions.threshold).toBe(5);

    const done = await update(token);
    expect(done.installed).toEqual(['web-xss']);
    expect(done.retired).toEqual(['net-outbound-telnet']);
    // Every rule of the older pack but the two the user changed or deleted (the one they only disabled is updated, still disabled).
    expect(done.updated).toHaveLength(pack.rules.length - 3);
    expect(done.updated).toContain('auth-distributed-guessing');
    expect(done.left_alone.map((r) => [r.pack_id, r.state]).sort()).toEqual([
      ['auth-password-spraying', 'modified'],
      ['auth-unknown-accounts', 'deleted'],
    ]);
    expect(done.left_alone.find((r) => r.pack_id === 'auth-password-spraying')!.reason).toMatch(/changed by a user/);

    expect((await stored(orgId, 'auth-brute-force'))!).toMatchObject({ conditions: { threshold: 10 }, origin: { pack_version: pack.version } });
    expect((await stored(orgId, 'auth-password-spraying'))!).toMatchObject({ conditions: { threshold: 8 }, origin: { pack_version: '0.9.0' } });
    expect((await stored(orgId, 'auth-distributed-guessing'))!).toMatchObject({ enabled: false, origin: { pack_version: pack.version } });
    expect(await stored(orgId, 'auth-unknown-accounts')).toBeNull();
    expect((await stored(orgId, 'net-outbound-telnet'))!.enabled).toBe(false);
    expect((await stored(orgId, 'web-xss'))!.enabled).toBe(true);

    // Again: nothing to do but report the same two.
    const again = await update(token);
    expect(again).toMatchObject({ installed: [], updated: [], retired: [], reset: [] });
    expect(again.left_alone).toHaveLength(2);

    // Reset takes the pack's version of a changed rule and brings a deleted one back.
    const reset = await update(token, { reset: ['auth-password-spraying', 'auth-unknown-accounts'] });
    expect(reset.reset.sort()).toEqual(['auth-password-spraying', 'auth-unknown-accounts']);
    expect(reset.left_alone).toEqual([]);
    expect((await stored(orgId, 'auth-password-spraying'))!.conditions.threshold).toBe(5);
    expect((await stored(orgId, 'auth-unknown-accounts'))!.enabled).toBe(true);
    const after = await status(token);
    expect(after.counts).toMatchObject({ current: pack.rules.length, retired: 1, modified: 0, deleted: 0, new: 0, outdated: 0 });
  });

  it('at start, brings every organization holding pack rules up to date, leaving user changes', async () => {
    const orgId = `org-start-${Date.now()}`;
    await updatePack(api.runtime.store, orgId, {}, olderPack());
    const token = api.token('all', orgId);
    await api.request('PUT', `/api/v1/lead-rules/${packRuleId(orgId, 'auth-brute-force')}`, { token, body: { severity: 'high' } });
    const done = await applyPackAtStart(api.runtime.store, []);
    const mine = done.find((d) => d.orgId === orgId)!;
    expect(mine.update.installed).toEqual(['web-xss']);
    expect(mine.update.left_alone.map((r) => r.pack_id)).toEqual(['auth-brute-force']);
    expect((await stored(orgId, 'auth-brute-force'))!).toMatchObject({ severity: 'high', conditions: { threshold: 5 } });
    // An organization that never had the pack gets nothing at start unless its first admin was just made.
    const untouched = `org-none-${Date.now()}`;
    expect((await applyPackAtStart(api.runtime.store, [])).some((d) => d.orgId === untouched)).toBe(false);
    expect((await applyPackAtStart(api.runtime.store, [untouched])).find((d) => d.orgId === untouched)!.update.installed).toHaveLength(pack.rules.length);
  });

  it('answers 400 for a reset of a rule the pack does not have, and 403 without signals:manage', async () => {
    const token = api.token();
    const res = await api.request('POST', '/api/v1/lead-rules/pack/update', { token, body: { reset: ['no-such-rule'] } });
    expect(res.status).toBe(400);
    expect(res.body.message).toMatch(/no-such-rule/);
    const reader = api.token(['signals:read']);
    expect((await api.request('GET', '/api/v1/lead-rules/pack', { token: reader })).status).toBe(200);
    const denied = await api.request('POST', '/api/v1/lead-rules/pack/update', { token: reader, body: {} });
    expect(denied.status).toBe(403);
    expect(denied.body.error).toMatchObject({ code: 'forbidden', details: { required: 'signals:manage' } });
  });

  it('exports a pack rule as Sigma with its false positives, and says 422 for a first-seen rule', async () => {
    const orgId = `org-sigma-${Date.now()}`;
    const token = api.token('all', orgId);
    await update(token);
    const res = await api.request('GET', `/api/v1/lead-rules/${packRuleId(orgId, 'auth-failures-then-success')}?format=sigma`, { token });
    expect(res.status).toBe(200);
    expect(res.text).toContain('type: temporal_ordered');
    expect(res.text).toContain('author: cairn rule pack');
    expect(res.text).toContain('falsepositives:');
    const firstSeen = await api.request('GET', `/api/v1/lead-rules/${packRuleId(orgId, 'auth-new-country-for-account')}?format=sigma`, { token });
    expect(firstSeen.status).toBe(422);
  });

  it('records updates in the audit log and describes both routes in the OpenAPI document', async () => {
    const token = api.token();
    await update(token);
    const audit = await api.request('GET', '/api/v1/audit-log?limit=10', { token });
    expect((audit.body.data as { entries: { action: string }[] }).entries.map((e) => e.action)).toContain('POST /v1/lead-rules/pack/update');
    const doc = (await api.request('GET', '/api/v1/openapi.json')).body as unknown as { paths: Record<string, Record<string, { 'x-permission': string }>> };
    expect(doc.paths['/api/v1/lead-rules/pack']!.get!['x-permission']).toBe('signals:read');
    expect(doc.paths['/api/v1/lead-rules/pack/update']!.post!['x-permission']).toBe('signals:manage');
  });
});

describe('a pack update on a server that backfills rules as they are enabled', () => {
  let backfilling: TestApi;
  beforeAll(async () => {
    backfilling = await startTestApi({ env: { CAIRN_RULES_BACKFILL_DAYS: '30' } });
  });
  afterAll(async () => {
    await backfilling?.close();
  });

  it('queues a backfill over CAIRN_RULES_BACKFILL_DAYS for each rule it installs, and none for rules it only confirms', async () => {
    const orgId = `org-backfill-${Date.now()}`;
    const token = backfilling.token('all', orgId);
    const jobsOf = async (ruleId: string) => {
      const res = await backfilling.request('GET', `/api/v1/lead-rules/${ruleId}/backfill`, { token });
      expect(res.status, res.text).toBe(200);
      return (res.body.data as { jobs: { trigger: string; status: string; start: string; end: string }[] }).jobs;
    };
    const first = (await backfilling.request('POST', '/api/v1/lead-rules/pack/update', { token, body: {} })).body.data as Update;
    expect(first.installed.length).toBe(pack.rules.length);
    const brute = packRuleId(orgId, 'auth-brute-force');
    const [job] = await jobsOf(brute);
    expect(job).toMatchObject({ trigger: 'enable' });
    expect(Date.parse(job!.end) - Date.parse(job!.start)).toBe(30 * 86_400_000);
    await eventually(async () => expect((await jobsOf(brute)).map((j) => j.status)).toEqual(['succeeded']), 60_000, 200);
    const again = (await backfilling.request('POST', '/api/v1/lead-rules/pack/update', { token, body: {} })).body.data as Update;
    expect(again.installed).toEqual([]);
    expect(await jobsOf(brute)).toHaveLength(1);
  });
});
