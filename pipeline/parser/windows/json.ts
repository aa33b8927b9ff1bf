// Windows events shipped as JSON: Winlogbeat's and Elastic Agent's documents
// (ECS, the event under winlog.*), and NXLog's im_msvistalog records (flat:
// the System fields under NXLog's names, EventData's fields beside them).
import { parseLogTime } from '../envelope.js';
import { flattenInto } from '../formats/generic-json.js';
import type { Json } from '../json-values.js';
import type { EventFields, FieldValue, ParseContext } from '../types.js';
import { isoString, parseIsoMillis } from '../../../lib/iso-time.js';
import { setOwn } from '../../../lib/lookup-table.js';
import type { WinEvent } from './record.js';

function str(value: FieldValue | unknown): string | undefined {
  if (typeof value === 'string') return value === '' ? undefined : value;
  if (typeof value === 'number' || typeof value === 'boolean') return String(value);
  return undefined;
}

function int(value: unknown): number | undefined {
  const n = typeof value === 'number' ? value : typeof value === 'string' && value !== '' ? Number(value) : NaN;
  return Number.isSafeInteger(n) ? n : undefined;
}

function isoTime(value: unknown, ctx: ParseContext): string | undefined {
  if (typeof value === 'number') return Number.isFinite(value) ? isoString(value > 1e12 ? value : value * 1000) : undefined;
  if (typeof value !== 'string') return undefined;
  // A time with a zone (or Z) is read as written; one without is in the context's time zone (NXLog's EventTime).
  if (/(?:Z|[+-]\d{2}:?\d{2})$/.test(value)) {
    const ms = parseIsoMillis(value);
    return ms === null ? undefined : isoString(ms);
  }
  return parseLogTime(value, ctx);
}

function auditOfKeywords(keywords: unknown): 'success' | 'failure' | undefined {
  const list = Array.isArray(keywords) ? keywords : [keywords];
  if (list.includes('Audit Success')) return 'success';
  if (list.includes('Audit Failure')) return 'failure';
  return undefined;
}

/** The flat fields under `prefix`, as text, by their name after it. */
function section(flat: EventFields, prefix: string): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [key, value] of Object.entries(flat)) {
    if (!key.startsWith(prefix)) continue;
    const text = Array.isArray(value) ? value.join(',') : str(value);
    if (text !== undefined) setOwn(out, key.slice(prefix.length), text);
  }
  return out;
}

/** Fields of a Winlogbeat document this module reads itself, not kept as they are. */
function ownedByReader(key: string): boolean {
  return key.startsWith('winlog.') || key.startsWith('event.') || key.startsWith('log.') || key === '@timestamp' || key === 'message';
}

/** Winlogbeat's or Elastic Agent's document (nested, or with dotted names). */
export function readWinlogbeat(document: Json, ctx: ParseContext): WinEvent | null {
  const flat: EventFields = {};
  flattenInto(flat, document, '');
  const eventId = str(flat['winlog.event_id']) ?? str(flat['event.code']);
  if (!eventId) return null;
  const extra: EventFields = {};
  for (const [key, value] of Object.entries(flat)) if (!ownedByReader(key)) setOwn(extra, key, value);
  const outcome = str(flat['event.outcome']) ?? str(flat['winlog.outcome']);
  return {
    eventId,
    channel: str(flat['winlog.channel']),
    provider: str(flat['winlog.provider_name']) ?? str(flat['event.provider']),
    computer: str(flat['winlog.computer_name']) ?? str(flat['host.name']),
    recordId: str(flat['winlog.record_id']),
    time: isoTime(flat['winlog.time_created'], ctx) ?? isoTime(flat['@timestamp'], ctx),
    audit: auditOfKeywords(flat['winlog.keywords']) ?? (outcome === 'success' || outcome === 'failure' ? outcome : undefined),
    keywords: Array.isArray(flat['winlog.keywords']) ? flat['winlog.keywords'].map(String) : undefined,
    level: str(flat['winlog.level'])?.toLowerCase() ?? str(flat['log.level'])?.toLowerCase(),
    task: str(flat['winlog.task']),
    opcode: str(flat['winlog.opcode'])?.replace(/\0/g, ''),
    version: int(flat['winlog.version']),
    processId: int(flat['winlog.process.pid']),
    threadId: int(flat['winlog.process.thread.id']),
    userSid: str(flat['winlog.user.identifier']),
    userName: str(flat['winlog.user.name']),
    userDomain: str(flat['winlog.user.domain']),
    data: section(flat, 'winlog.event_data.'),
    userData: section(flat, 'winlog.user_data.'),
    message: str(flat.message),
    action: str(flat['event.action']),
    extra,
  };
}

/** NXLog's own fields of an im_msvistalog record; every other field is the event's data. */
const NXLOG_FIELDS = new Set([
  'EventTime', 'EventTimeWritten', 'Hostname', 'Keywords', 'EventType', 'SeverityValue', 'Severity', 'EventID', 'SourceName',
  'ProviderGuid', 'Version', 'Task', 'OpcodeValue', 'RecordNumber', 'ActivityID', 'RelatedActivityID', 'ProcessID', 'ThreadID',
  'Channel', 'Domain', 'AccountName', 'UserID', 'AccountType', 'Category', 'Opcode', 'Message', 'EventReceivedTime',
  'SourceModuleName', 'SourceModuleType', 'Level', 'Qualifiers', 'ERRORLEVEL', 'MessageSourceAddress',
]);

export function looksLikeNxlog(document: Json): boolean {
  return 'EventID' in document && ('Channel' in document || 'SourceName' in document);
}

/** An NXLog im_msvistalog record (to_json). */
export function readNxlog(document: Json, ctx: ParseContext): WinEvent | null {
  const eventId = str(document.EventID);
  if (!eventId) return null;
  const data: Record<string, string> = {};
  for (const [key, value] of Object.entries(document)) {
    if (NXLOG_FIELDS.has(key)) continue;
    const text = str(value);
    if (text !== undefined) setOwn(data, key, text);
  }
  const type = str(document.EventType);
  return {
    eventId,
    channel: str(document.Channel),
    provider: str(document.SourceName),
    computer: str(document.Hostname),
    recordId: str(document.RecordNumber),
    time: isoTime(document.EventTime, ctx),
    audit: type === 'AUDIT_SUCCESS' ? 'success' : type === 'AUDIT_FAILURE' ? 'failure' : undefined,
    level: str(document.Severity)?.toLowerCase(),
    task: str(document.Category),
    opcode: str(document.Opcode),
    version: int(document.Version),
    processId: int(document.ProcessID),
    threadId: int(document.ThreadID),
    userSid: str(document.UserID),
    userName: str(document.AccountName),
    userDomain: str(document.Domain),
    data,
    userData: {},
    message: str(document.Message),
  };
}
