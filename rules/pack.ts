// The shipped rule pack: detection rules in cairn's own lead-rule form, one
// YAML file per family under rules/pack/, the pack's version in
// rules/pack/VERSION (docs/rules.md). Each rule carries what it means, its
// known false positives, its ATT&CK tags and test lines that must and must
// not fire (test/rule-pack.test.ts runs them through the rule step).
//
// An organization's copy of a pack rule is a lead rule with a stable id (the
// organization and the pack id) and origin `pack`: the pack version it came
// from and the fingerprint of what the pack wrote. A user may disable or tune
// it like any rule; an update replaces only the rules whose content still
// has the fingerprint the pack gave them, and reports the others.
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { parse as parseYaml } from 'yaml';
import { z } from 'zod';
import type { Store } from '../clickhouse/client.js';
import { Severity } from '../clickhouse/severity.js';
import { deletedLeadRuleIds, LeadRuleConditions, listPackLeadRules, orgsWithPackLeadRules, saveLeadRules, type LeadRule, type PackOrigin } from '../clickhouse/tables/lead-rules.js';
import { stableId } from '../lib/ids.js';
import { compileRule } from '../pipeline/leads/rules.js';

export const PACK_DIR = path.join(import.meta.dirname, 'pack');

/** Lines one test case sends, in order, as artifacts of `source`; each case runs alone (fresh rule state). */
export const PackTestCase = z.strictObject({
  source: z.string().min(1),
  lines: z.array(z.string().min(1)).min(1),
  /** What the case shows, for the reader of a failing test. */
  note: z.string().optional(),
  /** For a case that must fire: exactly how many firings (leads) it raises; without it, at least one. */
  firings: z.int().min(1).optional(),
});
export type PackTestCase = z.infer<typeof PackTestCase>;

const ATTACK_TAG = /^attack\.(t\d{4}(\.\d{3})?|[a-z]+(-[a-z]+)*)$/;

export const PackRuleSpec = z.strictObject({
  /** Stable for the life of the pack: it names the organization's copy of the rule. */
  id: z.string().regex(/^[a-z0-9]+(-[a-z0-9]+)*$/, 'id must be a lower-case slug such as ssh-brute-force'),
  name: z.string().trim().min(1).max(200),
  description: z.string().trim().min(1).max(2000),
  false_positives: z.array(z.string().trim().min(1)).min(1, 'name at least one known false positive (or say why there is none)'),
  severity: Severity,
  tags: z
    .array(z.string().max(100))
    .min(1)
    .max(50)
    .refine((tags) => tags.some((t) => ATTACK_TAG.test(t)), 'tags must name an ATT&CK technique or tactic (attack.t1110, attack.credential-access)'),
  /** Shipped disabled: an organization enables it when it fits (docs/rules.md says why). */
  enabled: z.boolean().default(true),
  conditions: z.strictObject(LeadRuleConditions.shape),
  tests: z.strictObject({
    fire: z.array(PackTestCase).min(1, 'give at least one case that must fire'),
    not_fire: z.array(PackTestCase).min(1, 'give at least one case that must not fire'),
  }),
});
export type PackRuleSpec = z.infer<typeof PackRuleSpec>;

export interface PackRule extends PackRuleSpec {
  /** The file's name without .yaml: authentication, accounts-hosts, network, ... */
  family: string;
}

export interface Pack {
  version: string;
  rules: PackRule[];
}

export class PackError extends Error {}

const VERSION_PATTERN = /^\d+\.\d+\.\d+$/;

/** Reads and checks the pack in `dir`: every file's schema, unique ids, patterns that compile. */
export function loadPack(dir: string = PACK_DIR): Pack {
  const version = fs.readFileSync(path.join(dir, 'VERSION'), 'utf8').trim();
  if (!VERSION_PATTERN.test(version)) throw new PackError(`${dir}/VERSION: "${version}" is not a version such as 1.2.0`);
  const rules: PackRule[] = [];
  const seen = new Map<string, string>();
  for (const file of fs.readdirSync(dir).filter((f) => f.endsWith('.yaml')).sort()) {
    const family = file.replace(/\.yaml$/, '');
    const doc: unknown = parseYaml(fs.readFileSync(path.join(dir, file), 'utf8'));
    if (!Array.isArray(doc)) throw new PackError(`${file}: a pack file is a list of rules`);
    for (const [index, entry] of doc.entries()) {
      const parsed = PackRuleSpec.safeParse(entry);
      const where = `${file}: rule ${(entry as { id?: unknown } | null)?.id ?? `#${index + 1}`}`;
      if (!parsed.success) {
        const issue = parsed.error.issues[0]!;
        throw new PackError(`${where}: ${issue.path.join('.')}: ${issue.message}`);
      }
      const rule = { ...parsed.data, family };
      if (seen.has(rule.id)) throw new PackError(`${where}: id also used in ${seen.get(rule.id)}`);
      seen.set(rule.id, file);
      try {
        // Compiles the pattern and every sequence step, as the rule stage will.
        compileRule(leadRuleOf(rule, version, 'check', new Date(0).toISOString()));
      } catch (err) {
        throw new PackError(`${where}: ${(err as Error).message}`);
      }
      rules.push(rule);
    }
  }
  return { version, rules };
}

let shipped: Pack | null = null;

/** The pack this cairn ships, read once. */
export function shippedPack(): Pack {
  shipped ??= loadPack();
  return shipped;
}

/** The id of an organization's copy of a pack rule: the same for every install and update. */
export function packRuleId(orgId: string, packId: string): string {
  return stableId('pack-rule', orgId, packId);
}

/** Keys sorted at every level, so equal content prints equally. */
function canonical(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(canonical);
  if (value && typeof value === 'object') {
    return Object.fromEntries(
      Object.entries(value)
        .filter(([, v]) => v !== undefined)
        .sort(([a], [b]) => (a < b ? -1 : 1))
        .map(([k, v]) => [k, canonical(v)]),
    );
  }
  return value;
}

/** What a user can tune in a rule (enabled aside: disabling a pack rule is not changing it). */
export function ruleFingerprint(rule: Pick<LeadRule, 'name' | 'description' | 'severity' | 'tags' | 'conditions'>): string {
  const content = canonical({ name: rule.name, description: rule.description, severity: rule.severity, tags: rule.tags, conditions: rule.conditions });
  return createHash('sha256').update(JSON.stringify(content)).digest('hex');
}

/** The organization's copy of a pack rule, as the pack writes it. */
export function leadRuleOf(rule: PackRule, version: string, orgId: string, now: string, current?: LeadRule): LeadRule {
  const content = { name: rule.name, description: rule.description, severity: rule.severity, tags: rule.tags, conditions: rule.conditions };
  const origin: PackOrigin = {
    format: 'pack',
    pack_id: rule.id,
    pack_version: version,
    family: rule.family,
    false_positives: rule.false_positives,
    fingerprint: ruleFingerprint(content),
  };
  return {
    id: packRuleId(orgId, rule.id),
    org_id: orgId,
    ...content,
    enabled: current?.enabled ?? rule.enabled,
    origin,
    created_at: current?.created_at ?? now,
    updated_at: now,
  };
}

/** -1, 0 or 1 as version a is older than, equal to or newer than b (both "major.minor.patch"). */
export function compareVersions(a: string, b: string): number {
  const [x, y] = [a, b].map((v) => v.split('.').map(Number));
  for (let i = 0; i < 3; i++) if (x![i] !== y![i]) return (x![i] ?? 0) < (y![i] ?? 0) ? -1 : 1;
  return 0;
}

/**
 * Where an organization's copy of a pack rule stands:
 * - `new`: not installed (a rule this pack version added, or the pack was never installed); an update installs it;
 * - `current`: installed as this pack writes it;
 * - `outdated`: installed from another pack version, unchanged since; an update replaces it;
 * - `modified`: the user changed it (name, description, severity, tags or conditions); an update leaves it alone;
 * - `deleted`: the user deleted it; an update leaves it deleted;
 * - `newer`: installed by a newer cairn's pack; left alone;
 * - `retired`: installed and unchanged, but this pack no longer has it; an update disables it (a changed one is `modified`).
 */
export type PackRuleState = 'new' | 'current' | 'outdated' | 'modified' | 'deleted' | 'newer' | 'retired';

export interface PackRuleStatus {
  pack_id: string;
  name: string;
  family: string | null;
  severity: Severity;
  state: PackRuleState;
  /** The organization's rule (null when not installed). */
  rule_id: string | null;
  enabled: boolean | null;
  installed_version: string | null;
}

export interface PackStatus {
  version: string;
  rules: PackRuleStatus[];
  counts: Record<PackRuleState, number>;
}

/** An organization's copy of a pack rule. */
type InstalledPackRule = LeadRule & { origin: PackOrigin };

function stateOf(rule: PackRule | undefined, installed: InstalledPackRule, version: string): PackRuleState {
  if (ruleFingerprint(installed) !== installed.origin.fingerprint) return 'modified';
  if (!rule) return 'retired';
  if (compareVersions(installed.origin.pack_version, version) > 0) return 'newer';
  return installed.origin.pack_version === version && installed.origin.fingerprint === ruleFingerprint(rule) ? 'current' : 'outdated';
}

function isPackRule(rule: LeadRule): rule is InstalledPackRule {
  return rule.origin?.format === 'pack';
}

/** The organization's pack rules by pack id, and where each rule of the pack (and each it holds) stands. */
async function readPackState(store: Store, orgId: string, pack: Pack): Promise<{ installed: Map<string, InstalledPackRule>; status: PackStatus }> {
  const installed = new Map((await listPackLeadRules(store, orgId)).filter(isPackRule).map((r) => [r.origin.pack_id, r]));
  const missing = pack.rules.filter((r) => !installed.has(r.id));
  const deleted = await deletedLeadRuleIds(store, orgId, missing.map((r) => packRuleId(orgId, r.id)));
  const rules: PackRuleStatus[] = pack.rules.map((rule) => {
    const held = installed.get(rule.id);
    if (!held) {
      const id = packRuleId(orgId, rule.id);
      const gone = deleted.has(id);
      return { pack_id: rule.id, name: rule.name, family: rule.family, severity: rule.severity, state: gone ? 'deleted' : 'new', rule_id: gone ? id : null, enabled: null, installed_version: null };
    }
    return statusOf(held, stateOf(rule, held, pack.version), rule.family);
  });
  const shippedIds = new Set(pack.rules.map((r) => r.id));
  for (const held of installed.values()) if (!shippedIds.has(held.origin.pack_id)) rules.push(statusOf(held, stateOf(undefined, held, pack.version), held.origin.family));
  const counts = { new: 0, current: 0, outdated: 0, modified: 0, deleted: 0, newer: 0, retired: 0 };
  for (const r of rules) counts[r.state]++;
  return { installed, status: { version: pack.version, rules, counts } };
}

/** Every rule of the pack, and every pack rule the organization holds, with where each stands. */
export async function packStatus(store: Store, orgId: string, pack: Pack = shippedPack()): Promise<PackStatus> {
  return (await readPackState(store, orgId, pack)).status;
}

function statusOf(rule: InstalledPackRule, state: PackRuleState, family: string | null): PackRuleStatus {
  return {
    pack_id: rule.origin.pack_id,
    name: rule.name,
    family,
    severity: rule.severity,
    state,
    rule_id: rule.id,
    enabled: rule.enabled,
    installed_version: rule.origin.pack_version,
  };
}

export interface PackUpdateOptions {
  /** Pack ids to write as the pack has them even if the user changed or deleted them. */
  reset?: string[];
  /** Report what an update would do without writing. */
  dryRun?: boolean;
}

export interface PackUpdate {
  version: string;
  installed: string[];
  updated: string[];
  /** Retired rules disabled. */
  retired: string[];
  /** Rules reset to the pack on request. */
  reset: string[];
  unchanged: number;
  /** Rules the update did not touch because of what the user did, or a newer pack wrote. */
  left_alone: { pack_id: string; rule_id: string | null; state: PackRuleState; reason: string }[];
  /** The rules written (empty on a dry run); the caller announces the change. */
  written: LeadRule[];
}

/** The rules an update installed (not those it replaced or reset): the ones that may look back over history (docs/backfill.md). */
export function installedBy(update: PackUpdate): LeadRule[] {
  const installed = new Set(update.installed);
  return update.written.filter((r) => isPackRule(r) && installed.has(r.origin.pack_id));
}

const LEFT_ALONE_REASONS: Partial<Record<PackRuleState, string>> = {
  modified: 'changed by a user since the pack wrote it (reset it to take the pack version)',
  deleted: 'deleted by a user (reset it to install it again)',
  newer: 'written by a newer pack version',
};

/**
 * Brings an organization's pack rules to this pack: installs new ones,
 * replaces unchanged ones written by another version, disables unchanged
 * retired ones, and leaves the user's changes and deletions alone (reported).
 * Idempotent: ids are stable, and an up-to-date organization gets no writes.
 */
export async function updatePack(store: Store, orgId: string, options: PackUpdateOptions = {}, pack: Pack = shippedPack()): Promise<PackUpdate> {
  const byId = new Map(pack.rules.map((r) => [r.id, r]));
  const reset = new Set(options.reset ?? []);
  const unknown = [...reset].filter((id) => !byId.has(id));
  if (unknown.length) throw new PackError(`not in pack ${pack.version}: ${unknown.join(', ')}`);
  const { installed: current, status } = await readPackState(store, orgId, pack);
  const now = new Date().toISOString();
  const result: PackUpdate = { version: pack.version, installed: [], updated: [], retired: [], reset: [], unchanged: 0, left_alone: [], written: [] };
  for (const entry of status.rules) {
    const rule = byId.get(entry.pack_id);
    const held = current.get(entry.pack_id);
    if (rule && reset.has(rule.id) && entry.state !== 'current') {
      result.written.push(leadRuleOf(rule, pack.version, orgId, now, held));
      result.reset.push(rule.id);
      continue;
    }
    switch (entry.state) {
      case 'new':
        result.written.push(leadRuleOf(rule!, pack.version, orgId, now));
        result.installed.push(entry.pack_id);
        break;
      case 'outdated':
        result.written.push(leadRuleOf(rule!, pack.version, orgId, now, held));
        result.updated.push(entry.pack_id);
        break;
      case 'retired':
        // Unchanged by the user (a changed one is `modified`): disabled once, then nothing more to do.
        if (held!.enabled) {
          result.written.push({ ...held!, enabled: false, updated_at: now });
          result.retired.push(entry.pack_id);
        } else result.unchanged++;
        break;
      case 'current':
        result.unchanged++;
        break;
      default: {
        const reason = rule ? LEFT_ALONE_REASONS[entry.state]! : 'no longer in the pack, and changed by a user';
        result.left_alone.push({ pack_id: entry.pack_id, rule_id: entry.rule_id, state: entry.state, reason });
      }
    }
  }
  if (options.dryRun) return { ...result, written: [] };
  await saveLeadRules(store, result.written);
  return result;
}

export interface PackAtStart {
  orgId: string;
  update: PackUpdate;
}

/**
 * What a starting cairn does with the pack: installs it for `installFor`
 * (the organization whose first admin was just made, on an empty store), and
 * brings every organization that holds pack rules up to this pack, leaving
 * what users changed alone. Returns what it did per organization that had
 * anything to do.
 */
export async function applyPackAtStart(store: Store, installFor: string[]): Promise<PackAtStart[]> {
  const orgs = [...new Set([...installFor, ...(await orgsWithPackLeadRules(store))])].sort();
  const done: PackAtStart[] = [];
  for (const orgId of orgs) {
    const update = await updatePack(store, orgId);
    if (update.written.length > 0 || update.left_alone.length > 0) done.push({ orgId, update });
  }
  return done;
}
