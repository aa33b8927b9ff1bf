// Netfilter LOG lines (iptables, ip6tables, nftables "log") as the kernel writes
// them, with or without a syslog header: "[prefix]IN=eth0 OUT= MAC=... SRC=... DST=... PROTO=TCP SPT=... DPT=...".
import { canonicalIp } from '../ip.js';
import { parseSyslogHeader, syslogFields } from '../syslog-header.js';
import type { EventFields, FormatParser, ParseContext } from '../types.js';
import { lookupTable } from '../../../lib/lookup-table.js';

/** Where the kernel's part starts: "IN=<dev> OUT=" (always first), after the log prefix. */
const PAYLOAD_START = /(?:^|[\s\]:>])IN=\S* OUT=/;
/** The kernel's uptime stamp ("[ 7181.412392] ") that some syslog daemons keep before the prefix. */
const UPTIME = /^\[\s*\d+\.\d+\]\s*/;
/** Ubiquiti EdgeOS/UniFi prefixes: "[WAN_LOCAL-default-D]" = rule set, rule, A(ccept)/D(rop)/R(eject). */
const UBIQUITI_PREFIX = /^\[([^\]\s]+)-([^\]\s-]+)-([ADR])\]$/;
/** A verdict word in a free-form prefix ("DROP_INPUT", "[UFW BLOCK]", "ACCEPT-ssh"); letters around it end the word. */
const PREFIX_VERDICT = /(?:^|[^a-z])(drop(?:ped)?|reject(?:ed)?|den(?:y|ied)|block(?:ed)?|accept(?:ed)?|allow(?:ed)?|permit(?:ted)?)(?:[^a-z]|$)/i;

type Verdict = 'denied' | 'allowed';

const VERDICTS = lookupTable<{ action: string; verdict: Verdict }>({
  drop: { action: 'drop', verdict: 'denied' },
  dropped: { action: 'drop', verdict: 'denied' },
  reject: { action: 'reject', verdict: 'denied' },
  rejected: { action: 'reject', verdict: 'denied' },
  deny: { action: 'deny', verdict: 'denied' },
  denied: { action: 'deny', verdict: 'denied' },
  block: { action: 'block', verdict: 'denied' },
  blocked: { action: 'block', verdict: 'denied' },
  accept: { action: 'accept', verdict: 'allowed' },
  accepted: { action: 'accept', verdict: 'allowed' },
  allow: { action: 'allow', verdict: 'allowed' },
  allowed: { action: 'allow', verdict: 'allowed' },
  permit: { action: 'permit', verdict: 'allowed' },
  permitted: { action: 'permit', verdict: 'allowed' },
  A: { action: 'accept', verdict: 'allowed' },
  D: { action: 'drop', verdict: 'denied' },
  R: { action: 'reject', verdict: 'denied' },
});

/** Kernel protocol names (PROTO=) to ECS network.transport and IANA numbers. */
const PROTOCOLS = lookupTable<{ transport: string; iana: number }>({
  TCP: { transport: 'tcp', iana: 6 },
  UDP: { transport: 'udp', iana: 17 },
  UDPLITE: { transport: 'udplite', iana: 136 },
  ICMP: { transport: 'icmp', iana: 1 },
  ICMPv6: { transport: 'ipv6-icmp', iana: 58 },
  SCTP: { transport: 'sctp', iana: 132 },
  GRE: { transport: 'gre', iana: 47 },
  ESP: { transport: 'esp', iana: 50 },
  AH: { transport: 'ah', iana: 51 },
  IGMP: { transport: 'igmp', iana: 2 },
});
const TRANSPORT_BY_IANA = new Map(Object.values(PROTOCOLS).map((p) => [p.iana, p.transport]));

const TCP_FLAGS = new Set(['CWR', 'ECE', 'URG', 'ACK', 'PSH', 'RST', 'SYN', 'FIN']);
const FRAGMENT_FLAGS = new Set(['CE', 'DF', 'MF']);

/** Fields the kernel prints in hex ("TOS=0x10", "MARK=0x1"). */
const HEX_FIELDS = new Set(['TOS', 'PREC', 'RES', 'MARK']);

/** Numeric keys of the IP header; after PROTO= the same names (ID, LEN) belong to the transport header. */
const IP_KEYS = lookupTable<string>({
  LEN: 'iptables.length',
  TOS: 'iptables.tos',
  PREC: 'iptables.precedence_bits',
  TTL: 'iptables.ttl',
  ID: 'iptables.id',
  // IPv6: the traffic class is IPv6's TOS, the hop limit its TTL.
  TC: 'iptables.tos',
  HOPLIMIT: 'iptables.ttl',
  FLOWLBL: 'iptables.flow_label',
});

/** Keys of the transport header, by protocol (UDP-Lite's are UDP's, ICMPv6's are ICMP's). */
const UDP_KEYS = lookupTable({ LEN: 'iptables.udp.length' });
const ICMP_KEYS = lookupTable({ TYPE: 'iptables.icmp.type', CODE: 'iptables.icmp.code', ID: 'iptables.icmp.id', SEQ: 'iptables.icmp.seq', PARAMETER: 'iptables.icmp.parameter', MTU: 'iptables.icmp.mtu' });
const TRANSPORT_KEYS = lookupTable<Record<string, string>>({
  tcp: lookupTable({ SEQ: 'iptables.tcp.seq', ACK: 'iptables.tcp.ack', WINDOW: 'iptables.tcp.window', RES: 'iptables.tcp.reserved_bits', URGP: 'iptables.tcp.urgent_pointer' }),
  udp: UDP_KEYS,
  udplite: UDP_KEYS,
  icmp: ICMP_KEYS,
  'ipv6-icmp': ICMP_KEYS,
});

const DECIMAL = /^\d{1,15}$/;
const HEX = /^(?:0x)?[0-9a-fA-F]{1,15}$/;

function number(key: string, value: string): number {
  if (HEX_FIELDS.has(key)) {
    if (HEX.test(value)) return Number.parseInt(value.startsWith('0x') ? value.slice(2) : value, 16);
  } else if (DECIMAL.test(value)) {
    return Number(value);
  }
  throw new Error(`netfilter ${key}= is not a number: "${value}"`);
}

function ip(key: string, value: string): string {
  const canonical = canonicalIp(value);
  if (!canonical) throw new Error(`netfilter ${key}= is not an IP address: "${value}"`);
  return canonical;
}

function port(key: string, value: string): number {
  const n = number(key, value);
  if (n > 65535) throw new Error(`netfilter ${key}= is not a port: "${value}"`);
  return n;
}

/** MAC= on Ethernet: 6 octets destination, 6 source, 2 EtherType; longer headers (802.1Q, padding) follow. */
const ETHERNET_HEADER = /^(?:[0-9a-fA-F]{2}:){13}[0-9a-fA-F]{2}(?::|$)/;
const VLAN_TAG = 0x8100;

/** ECS's MAC notation (RFC 7042): upper-case octets joined by hyphens. */
function ecsMac(colonSeparated: string): string {
  return colonSeparated.replaceAll(':', '-').toUpperCase();
}

/** The 16-bit value of the two octets at `octet` ("08:00" at 12 is 0x0800). */
function uint16At(header: string, octet: number): number {
  const at = octet * 3;
  return Number.parseInt(header.slice(at, at + 2) + header.slice(at + 3, at + 5), 16);
}

/**
 * MAC= is the link-layer header. On Ethernet: destination (6 octets), source
 * (6), EtherType (2); an 802.1Q tag puts 0x8100 and the VLAN id before the real EtherType.
 */
function readMacHeader(value: string, fields: EventFields): void {
  if (!ETHERNET_HEADER.test(value)) return;
  fields['destination.mac'] = ecsMac(value.slice(0, 17));
  fields['source.mac'] = ecsMac(value.slice(18, 35));
  const etherType = uint16At(value, 12);
  if (etherType === VLAN_TAG && value.length >= 18 * 3 - 1) {
    fields['network.vlan.id'] = String(uint16At(value, 14) & 0x0fff);
    fields['iptables.ether_type'] = uint16At(value, 16);
  } else {
    fields['iptables.ether_type'] = etherType;
  }
}

function readProtocol(value: string, fields: EventFields): string | undefined {
  const known = PROTOCOLS[value];
  if (known) {
    fields['network.transport'] = known.transport;
    fields['network.iana_number'] = String(known.iana);
    return known.transport;
  }
  // Protocols without a kernel name are printed as their number.
  if (/^\d+$/.test(value)) {
    fields['network.iana_number'] = value;
    const transport = TRANSPORT_BY_IANA.get(Number(value));
    if (transport) fields['network.transport'] = transport;
    return transport;
  }
  fields['network.transport'] = value.toLowerCase();
  return value.toLowerCase();
}

function append(fields: EventFields, name: string, value: string): void {
  const list = fields[name];
  fields[name] = Array.isArray(list) ? [...list, value] : [value];
}

/** Reads the kernel's KEY=VALUE and flag tokens into fields. */
function readPayload(payload: string, fields: EventFields): void {
  let transport: string | undefined;
  let skipUntil: string | null = null;
  let incomplete = false;
  for (const token of payload.split(' ')) {
    if (token === '') continue;
    if (skipUntil) {
      if (token.endsWith(skipUntil)) skipUntil = null;
      continue;
    }
    if (token[0] === '[') {
      // "INCOMPLETE [65 bytes]", or the offending packet an ICMP error quotes: its SRC/DST are not this packet's.
      if (incomplete && /^\[\d+$/.test(token)) fields['iptables.incomplete_bytes'] = Number(token.slice(1));
      if (!token.endsWith(']')) skipUntil = ']';
      continue;
    }
    if (token[0] === '(') {
      // OPT (0204...) : IP or TCP options in hex.
      if (!token.endsWith(')')) skipUntil = ')';
      continue;
    }
    const eq = token.indexOf('=');
    if (eq < 0) {
      readFlag(token, transport, fields);
      incomplete = token === 'INCOMPLETE';
      continue;
    }
    const key = token.slice(0, eq);
    const value = token.slice(eq + 1);
    const numericField = transport === undefined ? IP_KEYS[key] : TRANSPORT_KEYS[transport]?.[key];
    if (numericField) {
      fields[numericField] = number(key, value);
    } else {
      transport = readPair(key, value, transport, fields);
    }
  }
}

function readFlag(token: string, transport: string | undefined, fields: EventFields): void {
  if (token === 'ARP') fields['network.type'] = 'arp';
  else if (transport === undefined && FRAGMENT_FLAGS.has(token)) append(fields, 'iptables.fragment_flags', token);
  else if (transport === 'tcp' && TCP_FLAGS.has(token)) append(fields, 'iptables.tcp.flags', token);
  else if (token.startsWith('FRAG:')) fields['iptables.fragment_offset'] = number('FRAG', token.slice(5));
}

/** Keys outside the IP and transport headers; returns the transport once PROTO= is read. */
function readPair(key: string, value: string, transport: string | undefined, fields: EventFields): string | undefined {
  switch (key) {
    case 'IN':
      // Empty for packets this host sends (IN=) or receives (OUT=).
      if (!value) break;
      fields['observer.ingress.interface.name'] = value;
      fields['iptables.input_device'] = value;
      break;
    case 'OUT':
      if (!value) break;
      fields['observer.egress.interface.name'] = value;
      fields['iptables.output_device'] = value;
      break;
    case 'PHYSIN':
      fields['iptables.physical_input_device'] = value;
      break;
    case 'PHYSOUT':
      fields['iptables.physical_output_device'] = value;
      break;
    case 'MAC':
      readMacHeader(value, fields);
      break;
    case 'SRC':
      fields['source.ip'] = ip(key, value);
      break;
    case 'DST':
      fields['destination.ip'] = ip(key, value);
      break;
    case 'SPT':
      fields['source.port'] = port(key, value);
      break;
    case 'DPT':
      fields['destination.port'] = port(key, value);
      break;
    case 'PROTO':
      return readProtocol(value, fields);
    // ARP packets (nftables "log" in the arp family) name their addresses so.
    case 'IPSRC':
      fields['source.ip'] = ip(key, value);
      break;
    case 'IPDST':
      fields['destination.ip'] = ip(key, value);
      break;
    case 'MACSRC':
      fields['source.mac'] = ecsMac(value);
      break;
    case 'MACDST':
      fields['destination.mac'] = ecsMac(value);
      break;
    case 'GATEWAY':
      fields['iptables.icmp.redirect'] = ip(key, value);
      break;
    case 'UID':
      // --log-uid: the local socket's owner, for packets this host sends.
      fields['user.id'] = value;
      break;
    case 'GID':
      fields['group.id'] = value;
      break;
    case 'MARK':
      fields['iptables.mark'] = number(key, value);
      break;
    default:
      if (value) fields[`iptables.${key.toLowerCase()}`] = value;
  }
  return transport;
}

/** The log prefix ("iptables DROP_INPUT:", "[UFW BLOCK]") as rule fields, and the verdict when it names one. */
function readPrefix(prefix: string, fields: EventFields): void {
  const label = prefix.trim().replace(/:$/, '').trim();
  if (!label) return;
  const ubiquiti = UBIQUITI_PREFIX.exec(label);
  fields['rule.name'] = ubiquiti || (label.startsWith('[') && label.endsWith(']')) ? label.slice(1, -1).trim() : label;
  let verdict = ubiquiti ? VERDICTS[ubiquiti[3]!] : undefined;
  if (ubiquiti) {
    fields['rule.ruleset'] = ubiquiti[1]!;
    fields['rule.id'] = ubiquiti[2]!;
  } else {
    const word = PREFIX_VERDICT.exec(label);
    if (word) verdict = VERDICTS[word[1]!.toLowerCase()];
  }
  if (!verdict) return;
  fields['event.action'] = verdict.action;
  fields['event.type'] = ['connection', verdict.verdict];
  // ECS allows success/failure/unknown only: a dropped packet is a connection attempt that failed.
  fields['event.outcome'] = verdict.verdict === 'allowed' ? 'success' : 'failure';
}

/**
 * The tail of a kernel line whose front a relay cut off (syslog's line length
 * limit on small routers): "kernel: L=126 ID=8698 DF PROTO=TCP SPT=88 DPT=51179 ...".
 * It starts at the first whole IP-header key; the addresses are lost, the
 * protocol and ports are still there.
 */
const FRAGMENT_START = /(?:^|\s)(?=(?:LEN|TOS|PREC|TTL|ID|PROTO)=\S)/;
/** The kernel's tag, with a "facility.level" word before it as some routers' syslog writes it. */
const KERNEL_TAG = /^(?:[a-z]+\.[a-z]+ )?kernel: /;

function looksLikeFragment(raw: string): boolean {
  return raw.includes(' PROTO=') && (raw.includes(' SPT=') || raw.includes(' DPT=')) && raw.includes('kernel:');
}

function looksLikeNetfilter(raw: string): boolean {
  return (raw.includes(' SRC=') && raw.includes(' DST=')) || raw.startsWith('IN=') || raw.includes(' IPSRC=') || looksLikeFragment(raw);
}

/** The payload of a cut-off kernel line, or null when the text is not one. */
function fragmentPayload(text: string, program: string | undefined): string | null {
  const tag = KERNEL_TAG.exec(text);
  if (program !== 'kernel' && !tag) return null;
  const body = tag ? text.slice(tag[0].length) : text;
  const start = FRAGMENT_START.exec(body);
  return start ? body.slice(start.index).trimStart() : null;
}

export function parseNetfilter(raw: string, ctx: ParseContext): EventFields | null {
  if (!looksLikeNetfilter(raw)) return null;
  const header = parseSyslogHeader(raw, ctx);
  const fields: EventFields = header ? syslogFields(header) : { message: raw };
  const text = header ? header.message : raw;
  const start = PAYLOAD_START.exec(text);
  fields['event.kind'] = 'event';
  fields['event.category'] = ['network'];
  fields['event.type'] = ['connection'];
  if (!start) {
    const fragment = text.includes(' SRC=') ? null : fragmentPayload(text, header?.program);
    if (fragment === null) return null;
    fields['process.name'] ??= 'kernel';
    readPayload(fragment, fields);
    return fields['network.transport'] ? fields : null;
  }
  const payloadAt = start.index + start[0].indexOf('IN=');
  readPrefix(text.slice(0, payloadAt).replace(UPTIME, ''), fields);
  readPayload(text.slice(payloadAt), fields);

  if (!fields['source.ip'] || !fields['destination.ip']) throw new Error('netfilter line without SRC= and DST=');
  fields['network.type'] ??= String(fields['source.ip']).includes(':') ? 'ipv6' : 'ipv4';
  return fields;
}

export const iptables: FormatParser = {
  name: 'iptables',
  detect: looksLikeNetfilter,
  parse: parseNetfilter,
};
