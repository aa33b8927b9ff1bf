// Zeek's logs to ECS, as Elastic's zeek package maps them: JSON (one record
// per line, Zeek's JSON writer, the usual way to ship them) and header-less
// TSV lines (tsv.ts says how their log is told). The log a record belongs to
// is found in logs.ts; its mapping is in the module named for it.
import { isObject, type Json } from '../json-values.js';
import type { EventFields, FormatParser, ParseContext } from '../types.js';
import { LOGS, logOf } from './logs.js';
import { addConnectionId, baseFields, keepZeekFields, zeekTime } from './shared.js';
import { looksLikeZeekTsv, readTsv } from './tsv.js';
import type { ZeekLog } from './log.js';

/** Keys only Zeek's records carry, one of which a Zeek JSON line has. */
const MARKERS = ['"uid":', '"id.orig_h":', '"fuid":', '"uids":', '"_path":', '"note":', '"certificate.serial":', '"peer":'];

/**
 * A search result exported from Splunk ({"preview":false,"result":{"_raw":"<the line>",...}}), a form
 * Zeek JSON arrives in when collected from a Splunk index: the Zeek line is _raw.
 */
function splunkRaw(value: Json): string | undefined {
  const result = value.result;
  return isObject(result) && typeof result._raw === 'string' && result._raw.startsWith('{') ? result._raw : undefined;
}

function looksLikeZeekJson(raw: string): boolean {
  const start = raw.trimStart();
  if (start.charCodeAt(0) !== 0x7b || !raw.includes('"ts"')) return false;
  return MARKERS.some((marker) => raw.includes(marker));
}

function looksLikeSplunkZeek(raw: string): boolean {
  return raw.charCodeAt(0) === 0x7b && raw.includes('"_raw":"{\\"ts\\":');
}

/** Some shippers nest the connection id ({"id": {"orig_h": ...}}): the dotted names Zeek writes. */
function flattenId(record: Json): void {
  const id = record.id;
  if (!isObject(id)) return;
  for (const key of ['orig_h', 'orig_p', 'resp_h', 'resp_p']) if (key in id) record[`id.${key}`] = id[key];
  delete record.id;
}

/** The Zeek record of a JSON line; null for other JSON; throws for a line that is Zeek's but broken. */
function readJson(raw: string): Json | null {
  let value: unknown;
  try {
    value = JSON.parse(raw);
  } catch (err) {
    if (raw.trimStart().startsWith('{"ts":') && MARKERS.some((marker) => raw.includes(marker))) {
      throw new Error(`broken Zeek JSON: ${(err as Error).message}`);
    }
    return null;
  }
  if (!isObject(value)) return null;
  const inner = splunkRaw(value);
  if (inner !== undefined) return readJson(inner);
  if (!('ts' in value)) return null;
  flattenId(value);
  return value;
}

function toEvent(record: Json, log: ZeekLog): EventFields {
  const timestamp = zeekTime(record.ts);
  if (!timestamp) throw new Error(`Zeek ${log.dataset} record with a bad ts: ${JSON.stringify(record.ts) ?? 'none'}`);
  const fields = baseFields(timestamp, log.dataset, log.kind);
  addConnectionId(fields, record);
  log.map(fields, record);
  if (log.transport && fields['network.transport'] === undefined) fields['network.transport'] = log.transport;
  keepZeekFields(fields, record, log.dataset, log.mapped);
  return fields;
}

export const zeek: FormatParser = {
  name: 'zeek',
  detect: (raw) => looksLikeZeekJson(raw) || looksLikeZeekTsv(raw) || looksLikeSplunkZeek(raw),
  parse(raw: string, ctx: ParseContext) {
    if (looksLikeZeekTsv(raw)) {
      const line = readTsv(raw);
      return line ? toEvent(line.record, LOGS[line.log]!) : null;
    }
    if (!looksLikeZeekJson(raw) && !looksLikeSplunkZeek(raw)) return null;
    const record = readJson(raw);
    if (!record) return null;
    const log = logOf(record, ctx.source);
    return log ? toEvent(record, log) : null;
  },
};
