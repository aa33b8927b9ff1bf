// ArcSight Common Event Format, the line most firewalls, WAFs, proxies and
// EDRs can emit, with or without a syslog header in front:
//   CEF:Version|Device Vendor|Device Product|Device Version|Signature ID|Name|Severity|Extension
// Header fields escape "\|" and "\\"; the extension is key=value pairs
// separated by spaces, values may hold spaces, and escape "\=", "\\", "\n",
// "\r". Keys of the ArcSight extension dictionary map to ECS; custom string
// and number fields (cs1..cs6, cn1..cn3, ...) are named by their labels; every
// other key is kept under cef.extensions.<key>, so nothing is lost. The
// event's class id, name and category words categorise it in ECS terms
// (security-event-categories.ts).
import type { EventFields, FormatParser, ParseContext } from '../types.js';
import { deviceEventEnvelope, deviceTime, setAddress, setOutcome, setSeverity } from './device-event.js';
import { categorizeSecurityEvent } from './security-event-categories.js';
import { lookupTable } from '../../../lib/lookup-table.js';

/** ArcSight extension keys with an ECS home. Addresses and numbers are converted; the rest is text. */
const CEF_TO_ECS = lookupTable<string>({
  src: 'source.ip',
  dst: 'destination.ip',
  spt: 'source.port',
  dpt: 'destination.port',
  smac: 'source.mac',
  dmac: 'destination.mac',
  shost: 'source.domain',
  dhost: 'destination.domain',
  suser: 'source.user.name',
  duser: 'destination.user.name',
  suid: 'source.user.id',
  duid: 'destination.user.id',
  sntdom: 'source.user.domain',
  dntdom: 'destination.user.domain',
  sourceTranslatedAddress: 'source.nat.ip',
  destinationTranslatedAddress: 'destination.nat.ip',
  sourceTranslatedPort: 'source.nat.port',
  destinationTranslatedPort: 'destination.nat.port',
  proto: 'network.transport',
  app: 'network.protocol',
  in: 'source.bytes',
  out: 'destination.bytes',
  act: 'event.action',
  reason: 'event.reason',
  msg: 'message',
  request: 'url.original',
  requestMethod: 'http.request.method',
  requestClientApplication: 'user_agent.original',
  requestContext: 'http.request.referrer',
  fname: 'file.name',
  filePath: 'file.path',
  fsize: 'file.size',
  fileHash: 'file.hash.sha256',
  dvc: 'observer.ip',
  dvchost: 'observer.hostname',
  deviceExternalId: 'observer.serial_number',
  deviceInboundInterface: 'observer.ingress.interface.name',
  deviceOutboundInterface: 'observer.egress.interface.name',
  dproc: 'process.name',
  dpid: 'process.pid',
  sproc: 'source.process.name',
  spid: 'source.process.pid',
  cnt: 'event.count',
  externalId: 'event.id',
  cat: 'event.provider',
});

const NUMBERS = new Set(['source.port', 'destination.port', 'source.nat.port', 'destination.nat.port', 'source.bytes', 'destination.bytes', 'file.size', 'process.pid', 'source.process.pid', 'event.count']);
const ADDRESSES = new Set(['source.ip', 'destination.ip', 'source.nat.ip', 'destination.nat.ip', 'observer.ip']);
/** Custom fields whose label (<key>Label) names them. */
const LABELLED = /^(?:c[sn]\d|cfp\d|c6a\d|deviceCustomDate\d|flexString\d|flexNumber\d|flexDate\d)$/;

/** Splits the header on unescaped pipes; null when there are not 7 fields before the extension. */
function splitHeader(text: string): { header: string[]; extension: string } | null {
  const header: string[] = [];
  let current = '';
  for (let i = 0; i < text.length; i++) {
    const c = text[i]!;
    if (c === '\\' && (text[i + 1] === '|' || text[i + 1] === '\\')) {
      current += text[++i];
    } else if (c === '|') {
      header.push(current);
      current = '';
      if (header.length === 7) return { header, extension: text.slice(i + 1) };
    } else {
      current += c;
    }
  }
  return null;
}

function unescapeValue(value: string): string {
  return value.replace(/\\([=\\nr|])/g, (_, c: string) => (c === 'n' ? '\n' : c === 'r' ? '\r' : c)).trim();
}

/** key=value pairs: a key starts with a letter, stands right before an unescaped "=" and after a space or the start (so an unescaped "1=1" inside a value stays in the value). */
export function parseExtension(text: string): Map<string, string> {
  const pairs = new Map<string, string>();
  const keyAt = /(?:^|\s)([A-Za-z][A-Za-z0-9_.[\]-]*)=/g;
  const starts: { key: string; at: number; valueAt: number }[] = [];
  for (let m = keyAt.exec(text); m; m = keyAt.exec(text)) {
    let slashes = 0;
    for (let i = m.index + m[0].length - 2; i >= 0 && text[i] === '\\'; i--) slashes++;
    if (slashes % 2 === 1) continue; // an escaped "=" inside a value
    starts.push({ key: m[1]!, at: m.index, valueAt: m.index + m[0].length });
  }
  starts.forEach((s, i) => pairs.set(s.key, unescapeValue(text.slice(s.valueAt, i + 1 < starts.length ? starts[i + 1]!.at : text.length))));
  return pairs;
}

function parseCef(line: string, ctx: ParseContext): EventFields | null {
  const at = line.indexOf('CEF:');
  if (at < 0) return null;
  const split = splitHeader(line.slice(at + 4));
  if (!split) throw new Error('CEF header needs 7 pipe-separated fields');
  const [version, vendor, product, deviceVersion, signature, name, severity] = split.header;
  if (!/^\d+(?:\.\d+)?$/.test(version!.trim())) throw new Error(`CEF version "${version}" is not a number`);
  const fields: EventFields = deviceEventEnvelope(line.slice(0, at), ctx);
  fields['cef.version'] = version!.trim();
  if (vendor) fields['observer.vendor'] = vendor;
  if (product) fields['observer.product'] = product;
  if (deviceVersion) fields['observer.version'] = deviceVersion;
  if (signature) fields['event.code'] = signature;
  if (name) {
    fields['rule.name'] = name;
    fields.message = name;
  }
  setSeverity(fields, severity!.trim());

  const extension = parseExtension(split.extension);
  for (const [key, value] of extension) {
    if (value === '' || key.endsWith('Label')) continue;
    const label = LABELLED.test(key) ? extension.get(`${key}Label`) : undefined;
    const ecs = CEF_TO_ECS[key];
    if (label) fields[`cef.extensions.${label}`] = value;
    else if (!ecs) fields[`cef.extensions.${key}`] = value;
    else if (ADDRESSES.has(ecs)) setAddress(fields, ecs, value);
    else if (NUMBERS.has(ecs)) {
      if (/^\d+$/.test(value)) fields[ecs] = Number(value);
    } else fields[ecs] = ecs === 'network.transport' ? value.toLowerCase() : value;
  }
  if (fields['source.user.name'] !== undefined) fields['user.name'] = fields['source.user.name']!;
  const time = deviceTime(extension.get('rt') ?? extension.get('end') ?? extension.get('start'), undefined, ctx);
  if (time) fields['@timestamp'] = time;
  for (const [key, ecs] of [['start', 'event.start'], ['end', 'event.end']] as const) {
    const t = deviceTime(extension.get(key), undefined, ctx);
    if (t) fields[ecs] = t;
  }
  setOutcome(fields, extension.get('outcome') ?? extension.get('act'));
  fields['event.kind'] = 'event';
  categorizeSecurityEvent(fields, { vendor, product, id: signature, name, deviceCategory: extension.get('cat'), action: extension.get('act') });
  return fields;
}

export const cef: FormatParser = {
  name: 'cef',
  detect: (raw) => raw.includes('CEF:'),
  parse(raw, ctx) {
    const at = raw.indexOf('CEF:');
    // "CEF:" must start the line or follow the syslog header.
    if (at < 0 || (at > 0 && raw[at - 1] !== ' ')) return null;
    return parseCef(raw.trimEnd(), ctx);
  },
};
