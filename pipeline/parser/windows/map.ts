// A Windows event to ECS: what every event carries (event.code, the
// provider, the computer, winlog.* as Winlogbeat writes it, the event's data
// kept whole under winlog.event_data.*), then the mapping of its channel.
import type { EventFields } from '../types.js';
import { lookupTable, setOwn } from '../../../lib/lookup-table.js';
import { isoString, parseIsoMillis } from '../../../lib/iso-time.js';
import { APPLOCKER, POWERSHELL, SECURITY, SYSMON, type EventSpec } from './events.js';
import { putAccount } from './fields.js';
import { addAppLocker, addPowerShell } from './powershell.js';
import type { WinEvent } from './record.js';
import { addSecurity } from './security.js';
import { addSysmon } from './sysmon.js';

type Family = 'security' | 'sysmon' | 'powershell' | 'applocker' | 'other';

/** Channels by the dataset Elastic's packages file them under. */
const DATASETS = lookupTable<string>({
  security: 'system.security',
  system: 'system.system',
  application: 'system.application',
  'microsoft-windows-sysmon/operational': 'windows.sysmon_operational',
  'windows powershell': 'windows.powershell',
  'microsoft-windows-powershell/operational': 'windows.powershell_operational',
  'microsoft-windows-applocker/exe and dll': 'windows.applocker_exe_and_dll',
  'microsoft-windows-applocker/msi and script': 'windows.applocker_msi_and_script',
  'microsoft-windows-applocker/packaged app-deployment': 'windows.applocker_packaged_app_deployment',
  'microsoft-windows-applocker/packaged app-execution': 'windows.applocker_packaged_app_execution',
});

function familyOf(e: WinEvent): Family {
  const provider = e.provider?.toLowerCase() ?? '';
  const channel = e.channel?.toLowerCase() ?? '';
  if (provider === 'microsoft-windows-security-auditing' || channel === 'security') return 'security';
  // The Service Control Manager's "A service was installed in the system" (System channel).
  if (e.eventId === '7045' && (provider === 'service control manager' || channel === 'system')) return 'security';
  if (provider === 'microsoft-windows-sysmon' || channel === 'microsoft-windows-sysmon/operational') return 'sysmon';
  if (provider === 'powershell' || provider === 'microsoft-windows-powershell' || channel === 'windows powershell' || channel === 'microsoft-windows-powershell/operational') return 'powershell';
  if (provider === 'microsoft-windows-applocker' || channel.startsWith('microsoft-windows-applocker/')) return 'applocker';
  return 'other';
}

const TABLES: Record<Family, Readonly<Record<string, EventSpec>> | null> = { security: SECURITY, sysmon: SYSMON, powershell: POWERSHELL, applocker: APPLOCKER, other: null };

/** Sysmon's UtcTime ("2024-03-05 10:12:13.456", UTC) is when the event happened; TimeCreated when it was logged. */
function timestampOf(e: WinEvent, family: Family): string | undefined {
  if (family === 'sysmon' && e.data.UtcTime) {
    const ms = parseIsoMillis(e.data.UtcTime);
    if (ms !== null) return isoString(ms);
  }
  return e.time;
}

/**
 * "winlog.event_data.<name>" by name, made once: a name built per event is a new string V8 must hash before each
 * store, and events repeat the same few hundred names. Bounded: the names come from the input.
 */
const DATA_FIELDS = new Map<string, string>();
const USER_DATA_FIELDS = new Map<string, string>();

function fieldName(cache: Map<string, string>, prefix: string, name: string): string {
  let field = cache.get(name);
  if (field === undefined) {
    field = prefix + name;
    if (cache.size < 5000) cache.set(name, field);
  }
  return field;
}

function addWinlog(fields: EventFields, e: WinEvent): void {
  fields['winlog.event_id'] = e.eventId;
  if (e.channel) fields['winlog.channel'] = e.channel;
  if (e.provider) fields['winlog.provider_name'] = e.provider;
  if (e.computer) fields['winlog.computer_name'] = e.computer;
  if (e.recordId) fields['winlog.record_id'] = e.recordId;
  if (e.keywords) fields['winlog.keywords'] = e.keywords;
  if (e.level) fields['winlog.level'] = e.level;
  if (e.task) fields['winlog.task'] = e.task;
  if (e.opcode) fields['winlog.opcode'] = e.opcode;
  if (e.version !== undefined) fields['winlog.version'] = e.version;
  if (e.processId !== undefined) fields['winlog.process.pid'] = e.processId;
  if (e.threadId !== undefined) fields['winlog.process.thread.id'] = e.threadId;
  if (e.userSid) fields['winlog.user.identifier'] = e.userSid;
  if (e.userName) fields['winlog.user.name'] = e.userName;
  if (e.userDomain) fields['winlog.user.domain'] = e.userDomain;
  for (const [name, value] of Object.entries(e.data)) if (value !== '') setOwn(fields, fieldName(DATA_FIELDS, 'winlog.event_data.', name), value);
  for (const [name, value] of Object.entries(e.userData)) if (value !== '') setOwn(fields, fieldName(USER_DATA_FIELDS, 'winlog.user_data.', name), value);
}

export function toEcs(e: WinEvent): EventFields {
  const family = familyOf(e);
  const fields: EventFields = { 'event.kind': 'event' };
  // A document without a time of its own keeps the artifact's (the time cairn received it).
  const timestamp = timestampOf(e, family);
  if (timestamp) fields['@timestamp'] = timestamp;
  const dataset = DATASETS[e.channel?.toLowerCase() ?? ''] ?? 'windows.forwarded';
  fields['event.module'] = dataset.slice(0, dataset.indexOf('.'));
  fields['event.dataset'] = dataset;
  fields['event.code'] = e.eventId;
  if (e.provider) fields['event.provider'] = e.provider;
  if (e.computer) fields['host.name'] = e.computer;
  if (e.message) fields.message = e.message;
  addWinlog(fields, e);

  const spec = TABLES[family]?.[e.eventId];
  if (family === 'security') addSecurity(fields, spec, e);
  else if (spec) {
    if (spec.category.length > 0) fields['event.category'] = [...spec.category];
    fields['event.type'] = [...spec.type];
    fields['event.action'] = spec.action;
  }
  if (family === 'sysmon') addSysmon(fields, e);
  if (family === 'powershell') addPowerShell(fields, e);
  if (family === 'applocker') addAppLocker(fields, e);
  // An event with no action of its own keeps the one the shipper rendered (its task name).
  if (fields['event.action'] === undefined && (e.action ?? e.task)) fields['event.action'] = (e.action ?? e.task)!;
  // The account the event was logged under, when the event's own data named none.
  if (fields['user.name'] === undefined && fields['user.id'] === undefined) putAccount(fields, 'user.', e.userName, e.userDomain, e.userSid);
  // The shipper's own fields (Winlogbeat's host.*, agent.*) where the event did not say otherwise.
  if (e.extra) for (const [key, value] of Object.entries(e.extra)) if (fields[key] === undefined) setOwn(fields, key, value);
  return fields;
}
