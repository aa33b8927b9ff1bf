// Windows event logs as users ship them, to ECS as Elastic's `windows` and
// `system` packages map them:
//   - Winlogbeat's and Elastic Agent's JSON (ECS, the event under winlog.*);
//   - NXLog's im_msvistalog JSON (flat: EventID, Channel, SourceName, Hostname, the event's data beside them);
//   - the rendered EventLog XML (<Event xmlns='http://schemas.microsoft.com/win/2004/08/events/event'>...), alone
//     or after a syslog header;
//   - the Snare tab form (MSWinEventLog<TAB>...) Snare and NXLog forward over syslog.
// Each reader (json.ts, xml.ts, snare.ts) fills one WinEvent (record.ts);
// map.ts maps it, with the event ids' meanings in events.ts.
import { isObject, type Json } from '../json-values.js';
import type { FormatParser, ParseContext } from '../types.js';
import { looksLikeNxlog, readNxlog, readWinlogbeat } from './json.js';
import { toEcs } from './map.js';
import type { WinEvent } from './record.js';
import { looksLikeSnare, readSnare } from './snare.js';
import { looksLikeEventXml, readEventXml } from './xml.js';

function looksLikeWindowsJson(raw: string): boolean {
  if (raw.trimStart().charCodeAt(0) !== 0x7b) return false;
  return raw.includes('"winlog":') || raw.includes('"winlog.event_id":') || (raw.includes('"EventID":') && (raw.includes('"Channel":') || raw.includes('"SourceName":')));
}

/** A JSON document that is a Windows event; null for other JSON; throws for one that is Windows' but broken. */
function readJson(raw: string, ctx: ParseContext): WinEvent | null {
  let value: unknown;
  try {
    value = JSON.parse(raw);
  } catch (err) {
    throw new Error(`broken Windows event JSON: ${(err as Error).message}`);
  }
  if (!isObject(value)) return null;
  const document: Json = value;
  if (isObject(document.winlog) || Object.keys(document).some((key) => key.startsWith('winlog.'))) return readWinlogbeat(document, ctx);
  return looksLikeNxlog(document) ? readNxlog(document, ctx) : null;
}

function read(raw: string, ctx: ParseContext): WinEvent | null {
  if (looksLikeWindowsJson(raw)) return readJson(raw, ctx);
  if (looksLikeEventXml(raw)) {
    const event = readEventXml(raw);
    if (!event) throw new Error('EventLog XML without a whole <Event> and its <System>');
    return event;
  }
  if (looksLikeSnare(raw)) return readSnare(raw, ctx);
  return null;
}

export const windows: FormatParser = {
  name: 'windows',
  detect: (raw) => looksLikeWindowsJson(raw) || looksLikeEventXml(raw) || looksLikeSnare(raw),
  parse(raw, ctx) {
    const event = read(raw, ctx);
    return event ? toEcs(event) : null;
  },
};
