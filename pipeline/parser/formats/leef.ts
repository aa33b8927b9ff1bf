// IBM QRadar's Log Event Extended Format, with or without a syslog header:
//   LEEF:1.0|Vendor|Product|Version|EventID|key=value<TAB>key=value...
//   LEEF:2.0|Vendor|Product|Version|EventID|^|key=value^key=value...
// LEEF 2.0 declares its attribute delimiter as a character or as hex
// ("x09", "0x5E"); 1.0 always uses a tab. Predefined keys map to ECS; every
// other key is kept under leef.<key>. devTime is read per devTimeFormat. The
// event id, message and category words categorise it in ECS terms
// (security-event-categories.ts).
import type { EventFields, FormatParser } from '../types.js';
import { deviceEventEnvelope, deviceTime, setAddress, setOutcome, setSeverity } from './device-event.js';
import { categorizeSecurityEvent } from './security-event-categories.js';
import { lookupTable } from '../../../lib/lookup-table.js';

const LEEF_TO_ECS = lookupTable<string>({
  src: 'source.ip',
  dst: 'destination.ip',
  srcPort: 'source.port',
  dstPort: 'destination.port',
  srcPreNAT: 'source.ip',
  dstPreNAT: 'destination.ip',
  srcPostNAT: 'source.nat.ip',
  dstPostNAT: 'destination.nat.ip',
  srcPostNATPort: 'source.nat.port',
  dstPostNATPort: 'destination.nat.port',
  srcMAC: 'source.mac',
  dstMAC: 'destination.mac',
  usrName: 'user.name',
  accountName: 'user.name',
  identHostName: 'host.hostname',
  identSrc: 'source.ip',
  proto: 'network.transport',
  srcBytes: 'source.bytes',
  dstBytes: 'destination.bytes',
  totalPackets: 'network.packets',
  cat: 'event.category_name',
  policy: 'rule.name',
  url: 'url.original',
  resource: 'url.original',
  action: 'event.action',
  reason: 'event.reason',
  msg: 'message',
  domain: 'user.domain',
  vSrc: 'source.ip',
  role: 'user.roles',
});
const NUMBERS = new Set(['source.port', 'destination.port', 'source.nat.port', 'destination.nat.port', 'source.bytes', 'destination.bytes', 'network.packets']);
const ADDRESSES = new Set(['source.ip', 'destination.ip', 'source.nat.ip', 'destination.nat.ip']);

/** The delimiter LEEF 2.0 declares: one character, or its code in hex ("x09", "0x09"). */
function delimiter(declared: string): string | null {
  if (declared.length === 1) return declared;
  const hex = /^(?:0?x)([0-9a-fA-F]{1,4})$/.exec(declared);
  return hex ? String.fromCharCode(Number.parseInt(hex[1]!, 16)) : null;
}

export const leef: FormatParser = {
  name: 'leef',
  detect: (raw) => raw.includes('LEEF:'),
  parse(raw, ctx) {
    const line = raw.trimEnd();
    const at = line.indexOf('LEEF:');
    if (at < 0 || (at > 0 && line[at - 1] !== ' ')) return null;
    const parts = line.slice(at + 5).split('|');
    const version = parts[0]!;
    if (!/^[12]\.0$/.test(version)) throw new Error(`LEEF version "${version}" is not 1.0 or 2.0`);
    if (parts.length < 6) throw new Error('LEEF header needs version, vendor, product, version and event id');
    let sep = '\t';
    let attributes: string;
    // LEEF 2.0 may declare its delimiter in a sixth field; without one (the field already holds key=value) it is a tab.
    const declared = version === '2.0' && parts.length >= 7 && !parts[5]!.includes('=') ? delimiter(parts[5]!) : null;
    if (version === '2.0' && parts.length >= 7 && !parts[5]!.includes('=') && declared === null) {
      throw new Error(`LEEF 2.0 delimiter "${parts[5]!.slice(0, 20)}" is neither one character nor hex`);
    }
    if (declared !== null) {
      sep = declared;
      attributes = parts.slice(6).join('|');
    } else {
      attributes = parts.slice(5).join('|');
    }
    const fields: EventFields = deviceEventEnvelope(line.slice(0, at), ctx);
    fields['leef.version'] = version;
    if (parts[1]) fields['observer.vendor'] = parts[1];
    if (parts[2]) fields['observer.product'] = parts[2];
    if (parts[3]) fields['observer.version'] = parts[3];
    if (parts[4]) fields['event.code'] = parts[4];

    const pairs = new Map<string, string>();
    for (const pair of attributes.split(sep)) {
      const eq = pair.indexOf('=');
      if (eq > 0) pairs.set(pair.slice(0, eq).trim(), pair.slice(eq + 1).trim());
    }
    for (const [key, value] of pairs) {
      if (value === '' || key === 'devTime' || key === 'devTimeFormat' || key === 'sev') continue;
      const ecs = LEEF_TO_ECS[key];
      if (!ecs) fields[`leef.${key}`] = value;
      else if (ADDRESSES.has(ecs)) setAddress(fields, ecs, value);
      else if (NUMBERS.has(ecs)) {
        if (/^\d+$/.test(value)) fields[ecs] = Number(value);
      } else fields[ecs] = ecs === 'network.transport' ? value.toLowerCase() : value;
    }
    setSeverity(fields, pairs.get('sev'));
    const time = deviceTime(pairs.get('devTime'), pairs.get('devTimeFormat'), ctx);
    if (time) fields['@timestamp'] = time;
    setOutcome(fields, pairs.get('action') ?? pairs.get('outcome'));
    fields['event.kind'] = 'event';
    categorizeSecurityEvent(fields, { vendor: parts[1], product: parts[2], id: parts[4], name: pairs.get('msg') ?? pairs.get('name'), deviceCategory: pairs.get('cat'), action: pairs.get('action') });
    return fields;
  },
};
