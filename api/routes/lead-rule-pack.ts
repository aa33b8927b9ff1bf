// The shipped rule pack as an organization holds it (docs/rules.md): where
// each pack rule stands, and the update that brings unchanged ones to this
// cairn's pack while leaving the user's changes and deletions alone.
import { z } from 'zod';
import { Severity } from '../../clickhouse/severity.js';
import { announceChange } from '../../pipeline/state/index.js';
import { PackError, installedBy, packStatus, updatePack, type PackRuleState } from '../../rules/pack.js';
import { badRequest } from '../http-error.js';
import { defineRoute } from '../route.js';

const STATES = ['new', 'current', 'outdated', 'modified', 'deleted', 'newer', 'retired'] as const satisfies readonly PackRuleState[];
const State = z.enum(STATES);

const RuleStatus = z.object({
  pack_id: z.string(),
  name: z.string(),
  family: z.string().nullable(),
  severity: Severity,
  state: State.describe(
    'new: not installed (an update installs it); current: as this pack writes it; outdated: from another pack version, unchanged since (an update replaces it); modified: changed by a user (left alone); deleted: deleted by a user (left alone); newer: written by a newer pack (left alone); retired: no longer in the pack, unchanged (an update disables it)',
  ),
  rule_id: z.uuid().nullable().describe('the lead rule (null when not installed)'),
  enabled: z.boolean().nullable(),
  installed_version: z.string().nullable(),
});

const StatusData = z.object({
  version: z.string().describe("the pack this cairn ships"),
  counts: z.object(Object.fromEntries(STATES.map((s) => [s, z.number().int()])) as Record<PackRuleState, z.ZodNumber>),
  rules: z.array(RuleStatus),
});

const UpdateBody = z.strictObject({
  reset: z
    .array(z.string().min(1))
    .max(500)
    .default([])
    .describe('pack ids to write as the pack has them even if a user changed or deleted them (their enabled state is kept)'),
  dry_run: z.boolean({ message: 'dry_run must be true or false' }).default(false).describe('answer what the update would do, without writing'),
});

const UpdateData = z.object({
  version: z.string(),
  dry_run: z.boolean(),
  installed: z.array(z.string()).describe('pack ids installed'),
  updated: z.array(z.string()).describe('pack ids replaced with this pack version'),
  retired: z.array(z.string()).describe('pack ids no longer in the pack, disabled'),
  reset: z.array(z.string()).describe('pack ids reset on request'),
  unchanged: z.number().int(),
  left_alone: z.array(z.object({ pack_id: z.string(), rule_id: z.uuid().nullable(), state: State, reason: z.string() })).describe('rules the update did not touch, and why'),
});

export const leadRulePackRoutes = [
  defineRoute({
    method: 'get',
    path: '/v1/lead-rules/pack',
    summary: 'The shipped rule pack: each rule and where the organization’s copy stands (cairn extension)',
    description: 'Every rule of the pack this cairn ships, and every pack rule the organization holds, with its state (see `state`). Installed pack rules are ordinary lead rules with `origin.format: "pack"`.',
    tag: 'Lead rules',
    permission: 'signals:read',
    response: StatusData,
    async handler({ auth, deps }) {
      const status = await packStatus(deps.store, auth.orgId);
      const { current, outdated, new: fresh, modified } = status.counts;
      return { message: `rule pack ${status.version}: ${current} current, ${outdated} outdated, ${fresh} not installed, ${modified} changed by users`, data: status };
    },
  }),
  defineRoute({
    method: 'post',
    path: '/v1/lead-rules/pack/update',
    summary: 'Bring the organization’s pack rules to this cairn’s pack, leaving rules users changed or deleted alone (cairn extension)',
    description:
      'Installs the pack rules the organization does not hold, replaces those written by another pack version that no user changed since (keeping their enabled state), disables retired ones, and reports in `left_alone` the rules it did not touch: changed or deleted by a user (name `reset` to take the pack version anyway), or written by a newer pack. Idempotent.',
    tag: 'Lead rules',
    permission: 'signals:manage',
    body: UpdateBody,
    response: UpdateData,
    async handler({ body, auth, deps }) {
      let result;
      try {
        result = await updatePack(deps.store, auth.orgId, { reset: body.reset, dryRun: body.dry_run });
      } catch (err) {
        if (err instanceof PackError) throw badRequest(`reset: ${err.message}`);
        throw err;
      }
      const { written, ...summary } = result;
      if (written.length > 0) await announceChange(deps.state, 'lead-rules');
      // Rules the pack adds may look back over history, as imported ones do (CAIRN_RULES_BACKFILL_DAYS, docs/backfill.md).
      await deps.backfills.queueOnEnable(installedBy(result), deps.config.backfill.onEnableDays, auth.email ?? auth.subject);
      const verb = body.dry_run ? 'would install' : 'installed';
      return {
        message: `rule pack ${result.version}: ${verb} ${result.installed.length}, updated ${result.updated.length}, reset ${result.reset.length}, retired ${result.retired.length}, left ${result.left_alone.length} alone`,
        data: { ...summary, dry_run: body.dry_run },
      };
    },
  }),
];
