// `cairn rules pack status|update`: the shipped rule pack as the
// organization holds it, and the update that leaves user changes alone,
// through a running cairn's API (GET /v1/lead-rules/pack, POST
// /v1/lead-rules/pack/update; docs/rules.md).
import { Command } from 'commander';
import { apiTarget, callApiData, withApiTargetOptions, type ApiTargetOptions } from '../api-target.js';
import type { Permission } from '../../identity/permissions.js';

interface RuleStatus {
  pack_id: string;
  name: string;
  state: string;
  enabled: boolean | null;
  installed_version: string | null;
}

interface StatusData {
  version: string;
  counts: Record<string, number>;
  rules: RuleStatus[];
}

interface UpdateData {
  version: string;
  dry_run: boolean;
  installed: string[];
  updated: string[];
  retired: string[];
  reset: string[];
  unchanged: number;
  left_alone: { pack_id: string; state: string; reason: string }[];
}

async function call<T>(options: ApiTargetOptions, permission: Permission, method: 'GET' | 'POST', route: string, body?: unknown): Promise<T> {
  const target = await apiTarget(options, { subject: 'cairn-rules', permissions: [permission] });
  return callApiData<T>(target, method, route, body);
}

function statusCommand(): Command {
  const command = new Command('status')
    .description('list the pack rules and where each stands: current, outdated, not installed, changed or deleted by a user')
    .option('--json', 'print the API answer as JSON');
  return withApiTargetOptions(command, 'signals:read').action(async (options: ApiTargetOptions & { json?: boolean }) => {
    const status = await call<StatusData>(options, 'signals:read', 'GET', '/v1/lead-rules/pack');
    if (options.json) {
      console.log(JSON.stringify(status, null, 2));
      return;
    }
    const counts = Object.entries(status.counts)
      .filter(([, n]) => n > 0)
      .map(([state, n]) => `${n} ${state}`)
      .join(', ');
    console.log(`rule pack ${status.version}: ${counts}`);
    const width = Math.max(...status.rules.map((r) => r.pack_id.length));
    for (const rule of status.rules) {
      const enabled = rule.enabled === null ? '' : rule.enabled ? '' : ' (disabled)';
      console.log(`  ${rule.state.padEnd(9)} ${rule.pack_id.padEnd(width)}  ${rule.name}${enabled}`);
    }
  });
}

function updateCommand(): Command {
  const command = new Command('update')
    .description('install missing pack rules and update the ones no user changed; rules changed or deleted by a user are left alone and listed')
    .option('--reset <pack-ids...>', 'take the pack version of these rules even if a user changed or deleted them')
    .option('--dry-run', 'say what would change, without writing');
  return withApiTargetOptions(command, 'signals:manage').action(async (options: ApiTargetOptions & { reset?: string[]; dryRun?: boolean }) => {
    const result = await call<UpdateData>(options, 'signals:manage', 'POST', '/v1/lead-rules/pack/update', { reset: options.reset ?? [], dry_run: options.dryRun ?? false });
    const would = result.dry_run ? ' (dry run: nothing written)' : '';
    console.log(
      `rule pack ${result.version}: ${result.installed.length} installed, ${result.updated.length} updated, ${result.reset.length} reset, ${result.retired.length} retired, ${result.unchanged} unchanged, ${result.left_alone.length} left alone${would}`,
    );
    for (const rule of result.left_alone) console.log(`  left alone ${rule.pack_id} (${rule.state}): ${rule.reason}`);
  });
}

export function packCommand(): Command {
  return new Command('pack').description('the shipped rule pack: status, update').addCommand(statusCommand()).addCommand(updateCommand());
}
