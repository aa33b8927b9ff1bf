// The rendered XML of an event (what Get-WinEvent's ToXml(), wevtutil qe
// /f:xml and forwarders that ship the XML write), on one line:
//
//   <Event xmlns='http://schemas.microsoft.com/win/2004/08/events/event'><System><Provider Name='...'/>
//   <EventID>4624</EventID>...<TimeCreated SystemTime='...'/>...<Channel>Security</Channel><Computer>...</Computer>
//   <Security UserID='S-1-5-18'/></System><EventData><Data Name='SubjectUserSid'>...</Data>...</EventData>
//   [<RenderingInfo Culture='en-US'><Message>...</Message><Task>Logon</Task>...</RenderingInfo>]</Event>
//
// Read by position with indexOf, element by element (no general XML parser,
// no regular expression over the whole line): linear in the line's length.
import { isoString, parseIsoMillis } from '../../../lib/iso-time.js';
import { setOwn } from '../../../lib/lookup-table.js';
import type { WinEvent } from './record.js';

interface Element {
  attributes: string;
  /** The text between the tags ('' for a self-closing element). */
  content: string;
  /** Where the element ends in the text it was found in. */
  end: number;
}

/** "<name" and "</name>" of element names, made once: a string built per call is a new string each time. */
const TAGS = new Map<string, { open: string; close: string }>();

function tags(name: string): { open: string; close: string } {
  let found = TAGS.get(name);
  if (!found) {
    found = { open: `<${name}`, close: `</${name}>` };
    // UserData's element names come from the event: the cache stays bounded.
    if (TAGS.size < 1000) TAGS.set(name, found);
  }
  return found;
}

/** The first <name ...> element at or after `from`, before `limit`. */
function element(xml: string, name: string, from = 0, limit = xml.length): Element | null {
  const tag = tags(name);
  let at = from;
  for (;;) {
    at = xml.indexOf(tag.open, at);
    if (at < 0 || at >= limit) return null;
    const next = xml.charCodeAt(at + name.length + 1);
    // <Data must not match <DataItem: the name ends at a space, '/' or '>'.
    if (next === 0x20 || next === 0x2f || next === 0x3e || next === 0x09) break;
    at += name.length + 1;
  }
  const tagEnd = xml.indexOf('>', at);
  if (tagEnd < 0) return null;
  const selfClosing = xml.charCodeAt(tagEnd - 1) === 0x2f;
  const attributes = xml.slice(at + name.length + 1, selfClosing ? tagEnd - 1 : tagEnd);
  if (selfClosing) return { attributes, content: '', end: tagEnd + 1 };
  const close = xml.indexOf(tag.close, tagEnd);
  if (close < 0) return null;
  return { attributes, content: xml.slice(tagEnd + 1, close), end: close + name.length + 3 };
}

/** An attribute's value, quoted with ' or ". */
function attribute(attributes: string, name: string): string | undefined {
  let at = attributes.indexOf(`${name}=`);
  while (at > 0 && attributes.charCodeAt(at - 1) !== 0x20) at = attributes.indexOf(`${name}=`, at + 1);
  if (at < 0) return undefined;
  const quote = attributes[at + name.length + 1];
  if (quote !== "'" && quote !== '"') return undefined;
  const end = attributes.indexOf(quote, at + name.length + 2);
  return end < 0 ? undefined : decode(attributes.slice(at + name.length + 2, end));
}

const ENTITIES: Record<string, string> = { lt: '<', gt: '>', amp: '&', quot: '"', apos: "'" };

/** XML's character and entity references undone. */
export function decode(text: string): string {
  if (!text.includes('&')) return text;
  return text.replace(/&(#x[0-9a-fA-F]{1,6}|#\d{1,7}|[a-z]{2,4});/g, (whole, ref: string) => {
    if (ref.startsWith('#x')) return String.fromCodePoint(Number.parseInt(ref.slice(2), 16));
    if (ref.startsWith('#')) return String.fromCodePoint(Number(ref.slice(1)));
    return ENTITIES[ref] ?? whole;
  });
}

/** The text of a simple element (<Channel>Security</Channel>) inside `xml`. */
function textOf(xml: string, name: string): string | undefined {
  const found = element(xml, name);
  return found && found.content !== '' ? decode(found.content) : undefined;
}

/** Levels as Windows names them (winlog.level). */
const LEVELS = ['information', 'critical', 'error', 'warning', 'information', 'verbose'];

/** The audit outcome Keywords holds: bit 52 Audit Failure, bit 53 Audit Success. */
function auditOf(keywords: string | undefined): 'success' | 'failure' | undefined {
  if (!keywords || !/^0x[0-9a-fA-F]{1,16}$/.test(keywords)) return undefined;
  const bits = BigInt(keywords);
  if (bits & 0x20000000000000n) return 'success';
  if (bits & 0x10000000000000n) return 'failure';
  return undefined;
}

/** EventData's <Data> elements by Name; unnamed ones (classic providers) are param1, param2 ... */
function readEventData(xml: string, into: Record<string, string>): void {
  let at = 0;
  let unnamed = 0;
  for (;;) {
    const data = element(xml, 'Data', at);
    if (!data) return;
    const name = attribute(data.attributes, 'Name') ?? `param${++unnamed}`;
    setOwn(into, name, decode(data.content));
    at = data.end;
  }
}

/** UserData's one child element and its fields (<LogFileCleared><SubjectUserSid>...</SubjectUserSid>...). */
function readUserData(xml: string, into: Record<string, string>): void {
  const open = xml.indexOf('<');
  const openEnd = xml.indexOf('>', open);
  if (open < 0 || openEnd < 0) return;
  let at = openEnd + 1;
  for (;;) {
    const start = xml.indexOf('<', at);
    if (start < 0 || xml.charCodeAt(start + 1) === 0x2f) return;
    const nameEnd = xml.slice(start + 1, start + 80).search(/[\s/>]/);
    if (nameEnd <= 0) return;
    const name = xml.slice(start + 1, start + 1 + nameEnd);
    const field = element(xml, name, start);
    if (!field) return;
    setOwn(into, name, decode(field.content));
    at = field.end;
  }
}

function time(value: string | undefined): string | undefined {
  if (!value) return undefined;
  const ms = parseIsoMillis(value);
  return ms === null ? undefined : isoString(ms);
}

function number(value: string | undefined): number | undefined {
  const n = Number(value);
  return value !== undefined && value !== '' && Number.isSafeInteger(n) ? n : undefined;
}

/** A line that is an event's XML: it starts with it, or ends with it after a header (a syslog forwarder's). */
export function looksLikeEventXml(raw: string): boolean {
  if (!raw.includes('<Event xmlns=')) return false;
  return raw.trimStart().startsWith('<Event') || raw.trimEnd().endsWith('</Event>');
}

/** The event of a line that holds <Event ...>...</Event> (after a syslog header, say); null when it holds none. */
export function readEventXml(raw: string): WinEvent | null {
  const start = raw.indexOf('<Event');
  if (start < 0) return null;
  const event = element(raw, 'Event', start);
  if (!event) return null;
  const xml = event.content;
  const system = element(xml, 'System');
  if (!system) return null;
  const eventId = textOf(system.content, 'EventID');
  if (!eventId) throw new Error('EventLog XML without an EventID');
  const provider = element(system.content, 'Provider');
  const created = element(system.content, 'TimeCreated');
  const execution = element(system.content, 'Execution');
  const security = element(system.content, 'Security');
  const keywords = textOf(system.content, 'Keywords');
  const level = number(textOf(system.content, 'Level'));
  const out: WinEvent = {
    eventId,
    channel: textOf(system.content, 'Channel'),
    provider: provider ? attribute(provider.attributes, 'Name') : undefined,
    computer: textOf(system.content, 'Computer'),
    recordId: textOf(system.content, 'EventRecordID'),
    time: created ? time(attribute(created.attributes, 'SystemTime')) : undefined,
    audit: auditOf(keywords),
    level: level !== undefined ? LEVELS[level] : undefined,
    version: number(textOf(system.content, 'Version')),
    processId: execution ? number(attribute(execution.attributes, 'ProcessID')) : undefined,
    threadId: execution ? number(attribute(execution.attributes, 'ThreadID')) : undefined,
    userSid: security ? attribute(security.attributes, 'UserID') : undefined,
    data: {},
    userData: {},
  };
  const eventData = element(xml, 'EventData', system.end);
  if (eventData) readEventData(eventData.content, out.data);
  const userData = element(xml, 'UserData', system.end);
  if (userData) readUserData(userData.content, out.userData);
  const rendering = element(xml, 'RenderingInfo', system.end);
  if (rendering) {
    out.message = textOf(rendering.content, 'Message');
    out.task = textOf(rendering.content, 'Task');
    out.opcode = textOf(rendering.content, 'Opcode');
    const renderedLevel = textOf(rendering.content, 'Level');
    if (renderedLevel) out.level = renderedLevel.toLowerCase();
    const names: string[] = [];
    let at = 0;
    for (let keyword = element(rendering.content, 'Keyword', at); keyword; keyword = element(rendering.content, 'Keyword', at)) {
      names.push(decode(keyword.content));
      at = keyword.end;
    }
    if (names.length > 0) out.keywords = names;
  }
  return out;
}
