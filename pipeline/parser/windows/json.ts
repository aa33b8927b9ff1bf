// Windows events shipped as JSON: Winlogbeat's and Elastic Agent's documents
// (ECS, the event under winlog.*), and NXLog's im_msvistalog records (flat:
// the System fields under NXLog's names, EventData's fields beside them).
import { parseLogTime } from '../envelope.js';
import { flattenInto } from '../formats/generic-json.js';
import { isObject, type Json } from '../json-values.js';
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

/** An object's fields as text, by name (Windows event data is text; a shipper may have made numbers of some). */
function texts(value: unknown): Record<string, string> {
  const out: Record<string, string> = {};
  if (!isObject(value)) return out;
  for (const key of Object.keys(value)) {
    const item = value[key];
    const text = Array.isArray(item) ? item.join(',') : str(item);
    if (text !== undefined) setOwn(out, key, text);
  }
  return out;
}

/** Top-level parts of a Winlogbeat document this module reads itself; the others (host, agent, log, ecs ...) are kept as they are. */
const READ_HERE = new Set(['winlog', 'event', '@timestamp', 'message']);

/** Winlogbeat's document with dotted names ({"winlog.event_id": ...}) in the nested form Winlogbeat writes. */
function nest(document: Json): Json {
  const nested: Json = {};
  for (const [key, value] of Object.entries(document)) {
    const parts = key.split('.');
    let at = nested;
    for (const part of parts.slice(0, -1)) {
      if (!isObject(at[part])) setOwn(at, part, {});
      at = at[part] as Json;
    }
    setOwn(at, parts[parts.length - 1]!, value);
  }
  return nested;
}

const child = (value: unknown, key: string): Json => (isObject(value) && isObject(value[key]) ? value[key] : {});

/** Winlogbeat's or Elastic Agent's document (nested, or with dotted names). */
export function readWinlogbeat(input: Json, ctx: ParseContext): WinEvent | null {
  const document = isObject(input.winlog) ? input : nest(input);
  const winlog = child(document, 'winlog');
  const event = child(document, 'event');
  const eventId = str(winlog.event_id) ?? str(event.code);
  if (!eventId) return null;
  const extra: EventFields = {};
  for (const key of Object.keys(document)) {
    if (READ_HERE.has(key)) continue;
    const value = document[key];
    if (isObject(value)) flattenInto(extra, value, `${key}.`);
    else if (typeof value === 'string' || typeof value === 'number' || typeof value === 'boolean') setOwn(extra, key, value);
  }
  const outcome = str(event.outcome) ?? str(winlog.outcome);
  const process = child(winlog, 'process');
  const user = child(winlog, 'user');
  const host = child(document, 'host');
  return {
    eventId,
    channel: str(winlog.channel),
    provider: str(winlog.provider_name) ?? str(event.provider),
    computer: str(winlog.computer_name) ?? str(host.name),
    recordId: str(winlog.record_id),
    time: isoTime(winlog.time_created, ctx) ?? isoTime(document['@timestamp'], ctx),
    audit: auditOfKeywords(winlog.keywords) ?? (outcome === 'success' || outcome === 'failure' ? outcome : undefined),
    keywords: Array.isArray(winlog.keywords) ? winlog.keywords.map(String) : undefined,
    level: str(winlog.level)?.toLowerCase() ?? str(child(document, 'log').level)?.toLowerCase(),
    task: str(winlog.task),
    opcode: str(winlog.opcode)?.replace(/\0/g, ''),
    version: int(winlog.version),
    processId: int(process.pid),
    threadId: int(child(process, 'thread').id),
    userSid: str(user.identifier),
    userName: str(user.name),
    userDomain: str(user.domain),
    data: texts(winlog.event_data),
    userData: texts(winlog.user_data),
    message: str(document.message),
    action: str(event.action),
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
