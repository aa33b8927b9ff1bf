// Cisco ASA / Firepower Threat Defense syslog ("%ASA-6-302013: Built ..."), after any of the
// syslog headers the devices write; message bodies are read per message id, as Filebeat's cisco module maps them.
import { canonicalIp } from '../ip.js';
import { offsetMinutes, parseSyslogHeader, syslogFields } from '../syslog-header.js';
import type { EventFields, FieldValue, FormatParser, ParseContext } from '../types.js';
import { lookupTable } from '../../../lib/lookup-table.js';

// "%ASA-6-302013:" and variants "%ASA-session-5-106100:", "%FTD-6-430003:", a missing colon.
const TAG = /%(ASA|FTD|PIX|FWSM)-(?:[A-Za-z]+-)?(\d)-(\d{6})(?::\s*|\s+|$)/y;
const MARKERS = ['%ASA-', '%FTD-', '%PIX-', '%FWSM-'];

const LOG_LEVELS = ['emergency', 'alert', 'critical', 'error', 'warning', 'notification', 'informational', 'debug'];

/** Zone abbreviations an ASA may print after the time ("Apr 15 2014 09:34:34 EDT:"). */
const ZONES = lookupTable<number>({ UTC: 0, GMT: 0, EST: -300, EDT: -240, CST: -360, CDT: -300, MST: -420, MDT: -360, PST: -480, PDT: -420, CET: 60, CEST: 120 });

const IANA_NUMBERS = lookupTable<string>({ icmp: '1', igmp: '2', tcp: '6', udp: '17', gre: '47', esp: '50', ah: '51', 'ipv6-icmp': '58', sctp: '132' });

type Side = 'source' | 'destination';

/** Field names per side, built once: template strings on the hot path cost more than the parse. */
function sideFields(side: Side) {
  return {
    address: `${side}.address`,
    ip: `${side}.ip`,
    domain: `${side}.domain`,
    port: `${side}.port`,
    natIp: `${side}.nat.ip`,
    natPort: `${side}.nat.port`,
    userName: `${side}.user.name`,
    userDomain: `${side}.user.domain`,
    mappedIp: `cisco.asa.mapped_${side}_ip`,
    mappedHost: `cisco.asa.mapped_${side}_host`,
    mappedPort: `cisco.asa.mapped_${side}_port`,
    username: `cisco.asa.${side}_username`,
  };
}
const SIDE_FIELDS = { source: sideFields('source'), destination: sideFields('destination') };

type Verdict = 'allowed' | 'denied';

// Building blocks of the message patterns. An address (IPv4, IPv6 or a host
// name from the ASA's "names") never holds a space, "/" or parentheses, and an
// interface name never holds ":" (it may hold spaces: "NP Identity Ifc"), so
// each piece ends at the first character that cannot belong to it.
const ADDR = String.raw`([^\s/()]+)`;
const IFACE = String.raw`([^:]+)`;
/** "(LOCAL\alice)", "(LOCAL\alice, 321:Test_VLAN)" or "(host.example.com)": identity firewall user or FQDN. */
const IDENTITY = String.raw`(?:\s?\((?!type )([^)]*)\))?`;
/** interface:address[/port][(identity)] */
const ENDPOINT = String.raw`${IFACE}:${ADDR}(?:/(\d+))?${IDENTITY}`;
/** interface:address/port (mapped-address/mapped-port)[(identity)], in Built messages */
const MAPPED_ENDPOINT = String.raw`${IFACE}:${ADDR}(?:/(\d+))? \(${ADDR}(?:/(\d+))?\)${IDENTITY}`;
/** interface:address/port [identity] in Teardown messages: the identity in parentheses or as a bare word. */
const TEARDOWN_ENDPOINT = String.raw`${IFACE}:${ADDR}(?:/(\d+))?(?:\s?\(([^)]*)\)| (?!to |duration )([^\s(]+))?`;

const re = (source: string) => new RegExp(source);

const PATTERNS = {
  inboundTcpDenied: re(String.raw`^(Inbound|Outbound) (\S+) connection (denied|permitted) from ${ADDR}/(\d+) to ${ADDR}/(\d+) flags (.*?) *on interface (\S+)`),
  connectionDeniedByList: re(String.raw`^(\S+) Connection (denied|permitted) by (inbound|outbound) list (\S+) src ${ADDR} dest ${ADDR}`),
  denyInboundFrom: re(String.raw`^Deny (inbound|outbound) (\S+) from ${ADDR}/(\d+) to ${ADDR}/(\d+) (?:on interface (\S+)|due to (\S+) (\S+))`),
  denySrcDst: re(String.raw`^Deny (inbound|outbound) (protocol \d+|\S+) src ${ENDPOINT} dst ${ENDPOINT}(?: ?\(type (\d+), code (\d+)\))?`),
  denyNoConnection: re(String.raw`^Deny (\S+) \(no connection\) from ${ADDR}/(\d+) to ${ADDR}/(\d+) flags (.*?) *on interface (\S+)`),
  ipSpoof: re(String.raw`^Deny IP spoof from \(${ADDR}\) to ${ADDR} on interface (\S+)`),
  landAttack: re(String.raw`^Deny IP due to Land Attack from ${ADDR} to ${ADDR}`),
  icmpDeniedByList: re(String.raw`^(\S+) packet type (\d+) denied by (inbound|outbound) list (\S+) src ${ADDR} dest ${ADDR}`),
  teardrop: re(String.raw`^Deny IP teardrop fragment \(size = \d+, offset = \d+\) from ${ADDR} to ${ADDR}`),
  reversePath: re(String.raw`^Deny (\S+) (reverse path check|connection spoof) from ${ADDR} to ${ADDR} on interface (\S+)`),
  accessGroup: re(String.raw`^Deny (protocol \d+|\S+) src ${ENDPOINT} dst ${ENDPOINT}(?: \(?type (\d+), code (\d+)\)?,?)? by access-group "([^"]*)"`),
  accessList: re(
    String.raw`^access-list (\S+) (permitted|denied|est-allowed) (\S+) (?:for user (\S+) )?([^\s/]+)/${ADDR}(?:\((\d+)\)| (\d+))(?:\(([^)]*)\))? -> ([^\s/]+)/${ADDR}(?:\((\d+)\)| (\d+))(?:\(([^)]*)\))? hit-cnt (\d+)`,
  ),
  noEgressInterface: re(String.raw`^Failed to locate egress interface for (\S+) from ${IFACE}:${ADDR}/(\d+) to ${ADDR}/(\d+)`),
  noNextHop: re(String.raw`^Routing failed to locate next[- ]hop for (\S+) from ${IFACE}:${ADDR}/(\d+) to ${IFACE}:${ADDR}/(\d+)`),
  h225PreAllocate: re(String.raw`^Pre-allocate H225 Call Signalling Connection for faddr ${ADDR}(?:/(\d+))? to laddr ${ADDR}`),
  builtConnection: re(String.raw`^Built (inbound|outbound) (\S+) connection (\d+) (?:for|from) ${MAPPED_ENDPOINT} to ${MAPPED_ENDPOINT}`),
  teardownConnection: re(
    String.raw`^Teardown (?:stub )?(\S+) (?:state-bypass )?connection(?: (\d+))? (?:for|from) ${TEARDOWN_ENDPOINT} to ${TEARDOWN_ENDPOINT} duration (\S+) (?:forwarded )?bytes (\d+)(?: (.+))?`,
  ),
  icmpConnection: re(
    String.raw`^(?:Built (inbound|outbound)|Teardown) (ICMP|ICMPv6) connection for faddr ([^\s/]+)/\d+${IDENTITY} gaddr ([^\s/]+)/\d+ laddr ([^\s/]+)/\d+${IDENTITY}(?: type (\d+) code (\d+))?`,
  ),
  urlAccessed: re(String.raw`^(?:([^\s@]+)@)?([^\s(]+)(?:\(([^)]*)\))? Accessed (JAVA )?URL (?:[^\s@:]+@)?([^\s:]+):(.*)$`),
  urlDenied: re(String.raw`^Access (denied|permitted) URL (\S+) SRC ${ADDR} DEST ${ADDR} on interface (\S+)`),
  translation: re(String.raw`^(Built|Teardown) (dynamic|static) (\S+) translation from ${IFACE}:${ADDR}/(\d+)${IDENTITY} to ${IFACE}:${ADDR}/(\d+)(?: duration (\S+))?`),
  icmpDenied: re(String.raw`^Denied (ICMP|IPv6-ICMP) type=(\d+), code=(\d+) from ${ADDR} on interface (\S+)`),
  icmpNoSession: re(String.raw`^Denied (\S+) type=(\d+), from (?:[lf]addr )?${ADDR} on interface (\S+) to (\S+?):? no matching session`),
  icmpErrorNoConnection: re(
    String.raw`^No matching connection for (\S+) error message: \S+ src ${IFACE}:${ADDR}${IDENTITY} dst ${IFACE}:${ADDR}${IDENTITY} \(type (\d+), code (\d+)\) on (\S+) interface\.\s*Original IP payload: (.*?)\.?$`,
  ),
  toTheBox: re(String.raw`^(\S+) (access permitted|access denied by ACL|request discarded) from ${ADDR}(?:/(\d+))? to ${IFACE}:${ADDR}(?:/(\S+))?`),
  login: re(String.raw`^Login (denied|permitted) from ${ADDR}/(\d+) to ${IFACE}:${ADDR}/(\S+) for user "([^"]*)"`),
  userAuthentication: re(String.raw`^User authentication (succeeded|failed): (?:IP address: ${ADDR}, )?Uname: (.+)$`),
  dropRate: re(
    String.raw`^\[\s*([^\]]*?)\s*\] drop (rate-\d+) exceeded\. Current burst rate is (-?\d+) per second, max configured rate is (-?\d+); Current average rate is (-?\d+) per second, max configured rate is (-?\d+); Cumulative total count is (\d+)`,
  ),
};

// ---------------------------------------------------------------- field helpers

function ipOf(text: string): string | null {
  return canonicalIp(text);
}

function port(text: string | undefined): number | undefined {
  if (text === undefined || !/^\d+$/.test(text)) return undefined;
  const n = Number(text);
  if (n > 65535) throw new Error(`cisco-asa: port out of range: ${text}`);
  return n;
}

/** An address as ECS wants it: the raw text in .address, then .ip when it is one, else .domain (an ASA "name"). */
function setAddress(fields: EventFields, side: Side, address: string | undefined, portText?: string): void {
  if (!address) return;
  const k = SIDE_FIELDS[side];
  fields[k.address] = address;
  const ip = ipOf(address);
  if (ip) fields[k.ip] = ip;
  else fields[k.domain] = address;
  const n = port(portText);
  if (n !== undefined) fields[k.port] = n;
}

/** The mapped (NAT) address the ASA prints beside the real one; source.nat.* only when it differs. */
function setMapped(fields: EventFields, side: Side, address: string | undefined, portText?: string): void {
  if (!address) return;
  const k = SIDE_FIELDS[side];
  const ip = ipOf(address);
  const n = port(portText);
  if (ip) fields[k.mappedIp] = ip;
  else fields[k.mappedHost] = address;
  if (n !== undefined) fields[k.mappedPort] = n;
  if (!ip) return;
  if (ip !== fields[k.ip] || (n !== undefined && n !== fields[k.port])) {
    fields[k.natIp] = ip;
    if (n !== undefined) fields[k.natPort] = n;
  }
}

/** The interface a packet came in on (the ASA's "source interface") and went out of. */
function setInterfaces(fields: EventFields, ingress: string | undefined, egress: string | undefined): void {
  if (ingress) {
    fields['cisco.asa.source_interface'] = ingress;
    fields['observer.ingress.interface.name'] = ingress;
  }
  if (egress) {
    fields['cisco.asa.destination_interface'] = egress;
    fields['observer.egress.interface.name'] = egress;
  }
}

const FQDN = /^[A-Za-z0-9-]+(?:\.[A-Za-z0-9-]+)+\.?$/;

/** Identity firewall text: "DOMAIN\user[, security-group]" names a user; a dotted name is the host's FQDN. */
function setIdentity(fields: EventFields, side: Side, text: string | undefined): void {
  const identity = text?.split(',')[0]?.trim();
  // An address in parentheses is a mapped address (GRE teardowns), not an identity.
  if (!identity || identity.includes('/') || ipOf(identity)) return;
  const k = SIDE_FIELDS[side];
  fields[k.username] = identity;
  const slash = identity.lastIndexOf('\\');
  if (slash > 0) {
    fields[k.userDomain] = identity.slice(0, slash).replace(/\\+$/, '');
    fields[k.userName] = identity.slice(slash + 1);
  } else if (FQDN.test(identity)) {
    fields[k.domain] ??= identity.replace(/\.$/, '');
  } else {
    fields[k.userName] = identity;
  }
}

/** Protocols whose "/n" after an address is a port (for ICMP it is an id, for GRE a call id). */
const PORT_PROTOCOLS = new Set(['tcp', 'udp', 'sctp']);

function carriesPorts(transport: string | undefined): boolean {
  return transport !== undefined && PORT_PROTOCOLS.has(transport);
}

const TRANSPORT_BY_IANA = new Map(Object.entries(IANA_NUMBERS).map(([name, number]) => [number, name]));
const NUMBERED_PROTOCOL = /^(?:protocol )?(\d{1,3})$/;

/** network.transport (lower case, ICMPv6 as IANA's "ipv6-icmp") and its IANA number; "protocol 47" is a number only. */
function setTransport(fields: EventFields, protocol: string | undefined): string | undefined {
  if (!protocol) return undefined;
  const numbered = NUMBERED_PROTOCOL.exec(protocol);
  let transport = numbered ? TRANSPORT_BY_IANA.get(numbered[1]!) : protocol.toLowerCase();
  if (transport === 'icmpv6' || transport === 'icmp6') transport = 'ipv6-icmp';
  if (transport) fields['network.transport'] = transport;
  const iana = numbered ? numbered[1]! : transport && IANA_NUMBERS[transport];
  if (iana) fields['network.iana_number'] = iana;
  return transport;
}

/**
 * The firewall's decision goes to event.type (denied/allowed); event.outcome
 * takes ECS's values only, so a denied packet is a failed connection attempt.
 */
function setVerdict(fields: EventFields, verdict: Verdict): void {
  fields['event.type'] = ['connection', verdict];
  fields['event.outcome'] = verdict === 'allowed' ? 'success' : 'failure';
}

/** ASA verbs for what happened to the packet. */
function verdictOf(word: string): Verdict {
  return /^(?:permit|permitted|est-allowed|access permitted)$/i.test(word) ? 'allowed' : 'denied';
}

function setIcmp(fields: EventFields, type: string | undefined, code: string | undefined): void {
  if (type !== undefined) fields['cisco.asa.icmp_type'] = Number(type);
  if (code !== undefined) fields['cisco.asa.icmp_code'] = Number(code);
}

/** "h:mm:ss" (hours may exceed 24) in seconds; undefined when it is not that. */
function durationSeconds(text: string): number | undefined {
  const parts = text.split(':');
  if (parts.length < 2 || parts.length > 4 || !parts.every((p) => /^\d+$/.test(p))) return undefined;
  return parts.reduce((total, part) => total * 60 + Number(part), 0);
}

/** event.duration (ns) and, when the line has a time, event.start/end: the message is logged when the flow ends. */
function setDuration(fields: EventFields, text: string | undefined): void {
  const seconds = text === undefined ? undefined : durationSeconds(text);
  if (seconds === undefined) return;
  fields['event.duration'] = seconds * 1e9;
  const end = fields['@timestamp'];
  if (typeof end !== 'string') return;
  fields['event.end'] = end;
  fields['event.start'] = new Date(Date.parse(end) - seconds * 1000).toISOString();
}

// ---------------------------------------------------------------- messages

type Handler = (body: string, fields: EventFields) => boolean;

const FIREWALL_RULE = 'firewall-rule';
const FLOW_EXPIRATION = 'flow-expiration';

/** 106001: a TCP connection attempt denied on an interface. */
function inboundTcpDenied(body: string, f: EventFields): boolean {
  const m = PATTERNS.inboundTcpDenied.exec(body);
  if (!m) return false;
  f['network.direction'] = m[1]!.toLowerCase();
  setTransport(f, m[2]);
  setVerdict(f, verdictOf(m[3]!));
  setAddress(f, 'source', m[4], m[5]);
  setAddress(f, 'destination', m[6], m[7]);
  if (m[8]) f['cisco.asa.tcp_flags'] = m[8].trim();
  setInterfaces(f, m[9], undefined);
  return true;
}

/** 106002: a connection denied by an outbound list. */
function connectionDeniedByList(body: string, f: EventFields): boolean {
  const m = PATTERNS.connectionDeniedByList.exec(body);
  if (!m) return false;
  setTransport(f, m[1]);
  setVerdict(f, verdictOf(m[2]!));
  f['network.direction'] = m[3]!;
  f['cisco.asa.rule_name'] = m[4]!;
  f['rule.name'] = m[4]!;
  setAddress(f, 'source', m[5]);
  setAddress(f, 'destination', m[6]);
  return true;
}

/** 106006/106007: inbound UDP denied on an interface, or by DNS inspection. */
function denyInboundFrom(body: string, f: EventFields): boolean {
  const m = PATTERNS.denyInboundFrom.exec(body);
  if (!m) return false;
  f['network.direction'] = m[1]!;
  setTransport(f, m[2]);
  setVerdict(f, 'denied');
  setAddress(f, 'source', m[3], m[4]);
  setAddress(f, 'destination', m[5], m[6]);
  setInterfaces(f, m[7], undefined);
  // 106007: "due to DNS Query|Response"
  if (m[8]) f['network.protocol'] = m[8].toLowerCase();
  return true;
}

/** 106010, 106014: "Deny inbound <proto> src if:addr[/port] dst if:addr[/port] [(type t, code c)]". */
function denySrcDst(body: string, f: EventFields): boolean {
  const m = PATTERNS.denySrcDst.exec(body);
  if (!m) return false;
  f['network.direction'] = m[1]!;
  const transport = setTransport(f, m[2]);
  setVerdict(f, 'denied');
  setEndpointPair(f, m.slice(3, 11), transport);
  setIcmp(f, m[11], m[12]);
  return true;
}

/** Two ENDPOINT captures (interface, address, port, identity) x 2 as source and destination. */
function setEndpointPair(f: EventFields, groups: (string | undefined)[], transport: string | undefined): void {
  const [srcIf, srcAddr, srcPort, srcId, dstIf, dstAddr, dstPort, dstId] = groups;
  const withPorts = carriesPorts(transport);
  setAddress(f, 'source', srcAddr, withPorts ? srcPort : undefined);
  setAddress(f, 'destination', dstAddr, withPorts ? dstPort : undefined);
  setIdentity(f, 'source', srcId);
  setIdentity(f, 'destination', dstId);
  setInterfaces(f, srcIf, dstIf);
}

/** 106015: a TCP packet belonging to no connection. */
function denyNoConnection(body: string, f: EventFields): boolean {
  const m = PATTERNS.denyNoConnection.exec(body);
  if (!m) return false;
  setTransport(f, m[1]);
  setVerdict(f, 'denied');
  setAddress(f, 'source', m[2], m[3]);
  setAddress(f, 'destination', m[4], m[5]);
  if (m[6]) f['cisco.asa.tcp_flags'] = m[6].trim();
  setInterfaces(f, m[7], undefined);
  return true;
}

/** 106016: a spoofed source address (the ASA prints it in parentheses). */
function ipSpoof(body: string, f: EventFields): boolean {
  const m = PATTERNS.ipSpoof.exec(body);
  if (!m) return false;
  setVerdict(f, 'denied');
  setAddress(f, 'source', m[1]);
  setAddress(f, 'destination', m[2]);
  setInterfaces(f, m[3], undefined);
  return true;
}

/** 106017 land attack, 106020 teardrop: a denied packet "from A to B". */
function fromToDenied(pattern: RegExp): Handler {
  return (body, f) => {
    const m = pattern.exec(body);
    if (!m) return false;
    setVerdict(f, 'denied');
    setAddress(f, 'source', m[1]);
    setAddress(f, 'destination', m[2]);
    return true;
  };
}

/** 106018: ICMP denied by an outbound list. */
function icmpDeniedByList(body: string, f: EventFields): boolean {
  const m = PATTERNS.icmpDeniedByList.exec(body);
  if (!m) return false;
  setTransport(f, m[1]);
  setIcmp(f, m[2], undefined);
  setVerdict(f, 'denied');
  f['network.direction'] = m[3]!;
  f['cisco.asa.rule_name'] = m[4]!;
  f['rule.name'] = m[4]!;
  setAddress(f, 'source', m[5]);
  setAddress(f, 'destination', m[6]);
  return true;
}

/** 106021 reverse path check, 106022 connection spoof. */
function reversePath(body: string, f: EventFields): boolean {
  const m = PATTERNS.reversePath.exec(body);
  if (!m) return false;
  setTransport(f, m[1]);
  setVerdict(f, 'denied');
  setAddress(f, 'source', m[3]);
  setAddress(f, 'destination', m[4]);
  setInterfaces(f, m[5], undefined);
  return true;
}

/** 106023: a packet denied by an interface ACL. */
function accessGroup(body: string, f: EventFields): boolean {
  const m = PATTERNS.accessGroup.exec(body);
  if (!m) return false;
  const transport = setTransport(f, m[1]);
  setVerdict(f, 'denied');
  setEndpointPair(f, m.slice(2, 10), transport);
  setIcmp(f, m[10], m[11]);
  f['cisco.asa.rule_name'] = m[12]!;
  f['rule.name'] = m[12]!;
  return true;
}

/** 106100 (and 106102/106103 "for user"): an ACL entry with logging hit. */
function accessList(body: string, f: EventFields): boolean {
  const m = PATTERNS.accessList.exec(body);
  if (!m) return false;
  f['cisco.asa.rule_name'] = m[1]!;
  f['rule.name'] = m[1]!;
  setVerdict(f, verdictOf(m[2]!));
  const transport = setTransport(f, m[3]);
  if (m[4]) f['user.name'] = m[4];
  const [srcPort, dstPort] = [m[7] ?? m[8], m[12] ?? m[13]];
  if (transport === 'icmp' || transport === 'ipv6-icmp') {
    // For ICMP the two numbers are the type and the code.
    setAddress(f, 'source', m[6]);
    setAddress(f, 'destination', m[11]);
    setIcmp(f, srcPort, dstPort);
  } else {
    setAddress(f, 'source', m[6], srcPort);
    setAddress(f, 'destination', m[11], dstPort);
  }
  setIdentity(f, 'source', m[9]);
  setIdentity(f, 'destination', m[14]);
  setInterfaces(f, m[5], m[10]);
  f['cisco.asa.hit_count'] = Number(m[15]);
  return true;
}

/** 110002: the ASA found no interface to send the packet out of, and dropped it. */
function noEgressInterface(body: string, f: EventFields): boolean {
  const m = PATTERNS.noEgressInterface.exec(body);
  if (!m) return false;
  setTransport(f, m[1]);
  setVerdict(f, 'denied');
  setAddress(f, 'source', m[3], m[4]);
  setAddress(f, 'destination', m[5], m[6]);
  setInterfaces(f, m[2], undefined);
  return true;
}

/** 110003: no route to the next hop; the packet is dropped. */
function noNextHop(body: string, f: EventFields): boolean {
  const m = PATTERNS.noNextHop.exec(body);
  if (!m) return false;
  setTransport(f, m[1]);
  setVerdict(f, 'denied');
  setAddress(f, 'source', m[3], m[4]);
  setAddress(f, 'destination', m[6], m[7]);
  setInterfaces(f, m[2], m[5]);
  return true;
}

/** 302012: an H.225 signalling connection opened ahead of the call, from laddr to faddr. */
function h225PreAllocate(body: string, f: EventFields): boolean {
  const m = PATTERNS.h225PreAllocate.exec(body);
  if (!m) return false;
  setTransport(f, 'tcp');
  f['network.protocol'] = 'h225';
  f['event.type'] = ['connection', 'start'];
  setAddress(f, 'destination', m[1], m[2]);
  setAddress(f, 'source', m[3]);
  return true;
}

/**
 * 302013 TCP, 302015 UDP, 302017 GRE: "Built inbound|outbound <proto> connection <id> for
 * if:addr/port (mapped) to if:addr/port (mapped)". Like Filebeat, the address after "for" is
 * the source whatever the direction (for an outbound connection that is the responder),
 * so that a connection's Built and Teardown messages agree.
 */
function builtConnection(body: string, f: EventFields): boolean {
  const m = PATTERNS.builtConnection.exec(body);
  if (!m) return false;
  f['network.direction'] = m[1]!;
  const ports = carriesPorts(setTransport(f, m[2]));
  f['cisco.asa.connection_id'] = m[3]!;
  f['event.type'] = ['connection', 'start'];
  setAddress(f, 'source', m[5], ports ? m[6] : undefined);
  setMapped(f, 'source', m[7], ports ? m[8] : undefined);
  setIdentity(f, 'source', m[9]);
  setAddress(f, 'destination', m[11], ports ? m[12] : undefined);
  setMapped(f, 'destination', m[13], ports ? m[14] : undefined);
  setIdentity(f, 'destination', m[15]);
  setInterfaces(f, m[4], m[10]);
  return true;
}

/** 302014/302016/302018 and the cluster/state-bypass variants: a connection torn down, with its duration and bytes. */
function teardownConnection(body: string, f: EventFields): boolean {
  const m = PATTERNS.teardownConnection.exec(body);
  if (!m) return false;
  f['event.action'] = FLOW_EXPIRATION;
  f['event.type'] = ['connection', 'end'];
  const ports = carriesPorts(setTransport(f, m[1]));
  if (m[2]) f['cisco.asa.connection_id'] = m[2];
  setAddress(f, 'source', m[4], ports ? m[5] : undefined);
  setIdentity(f, 'source', m[6] ?? m[7]);
  setAddress(f, 'destination', m[9], ports ? m[10] : undefined);
  setIdentity(f, 'destination', m[11] ?? m[12]);
  setInterfaces(f, m[3], m[8]);
  setDuration(f, m[13]);
  f['network.bytes'] = Number(m[14]);
  const reason = m[15]?.trim();
  // A trailing "(user)" is the identity firewall's, not a reason.
  if (reason && !reason.startsWith('(')) f['event.reason'] = reason;
  return true;
}

/**
 * 302020/302021: ICMP "connections" name the foreign (faddr), global (gaddr,
 * the NAT address) and local (laddr) hosts. Filebeat maps faddr to the
 * destination and laddr to the source; the numbers after "/" are ICMP ids, not ports.
 */
function icmpConnection(body: string, f: EventFields): boolean {
  const m = PATTERNS.icmpConnection.exec(body);
  if (!m) return false;
  const built = m[1] !== undefined;
  if (built) f['network.direction'] = m[1]!;
  else f['event.action'] = FLOW_EXPIRATION;
  f['event.type'] = ['connection', built ? 'start' : 'end'];
  setTransport(f, m[2]);
  setAddress(f, 'destination', m[3]);
  setIdentity(f, 'destination', m[4]);
  setAddress(f, 'source', m[6]);
  setIdentity(f, 'source', m[7]);
  setMapped(f, 'source', m[5]);
  setIcmp(f, m[8], m[9]);
  return true;
}

/** 304001: a URL the ASA's URL filtering let through. */
function urlAccessed(body: string, f: EventFields): boolean {
  const m = PATTERNS.urlAccessed.exec(body);
  if (!m) return false;
  if (m[1]) f['user.name'] = m[1];
  setAddress(f, 'source', m[2]);
  setIdentity(f, 'source', m[3]);
  setAddress(f, 'destination', m[5]);
  setUrl(f, m[6]!.trim());
  f['event.category'] = ['network', 'web'];
  f['event.type'] = ['access', 'allowed'];
  f['event.outcome'] = 'success';
  return true;
}

function setUrl(f: EventFields, url: string): void {
  if (!url) return;
  f['url.original'] = url;
  if (!url.includes('://')) return;
  try {
    const hostname = new URL(url).hostname;
    if (hostname) f['url.domain'] = hostname.replace(/^\[|\]$/g, '');
  } catch {
    // Not a URL the WHATWG parser takes; url.original keeps it.
  }
}

/** 304002: a URL the filtering server denied (or permitted). */
function urlDenied(body: string, f: EventFields): boolean {
  const m = PATTERNS.urlDenied.exec(body);
  if (!m) return false;
  const verdict = verdictOf(m[1]!);
  setUrl(f, m[2]!);
  setAddress(f, 'source', m[3]);
  setAddress(f, 'destination', m[4]);
  setInterfaces(f, m[5], undefined);
  f['event.category'] = ['network', 'web'];
  f['event.type'] = ['access', verdict];
  f['event.outcome'] = verdict === 'allowed' ? 'success' : 'failure';
  return true;
}

/**
 * 305011/305012: an address translation slot built or torn down. The
 * "to" address is the real address's NAT mapping, so it goes to source.nat
 * (Filebeat writes it as the destination, which would invent a flow to the firewall).
 */
function translation(body: string, f: EventFields): boolean {
  const m = PATTERNS.translation.exec(body);
  if (!m) return false;
  const built = m[1] === 'Built';
  f['event.action'] = built ? FIREWALL_RULE : FLOW_EXPIRATION;
  f['event.type'] = built ? ['info'] : ['connection', 'end'];
  f['cisco.asa.translation_type'] = m[2]!;
  const withPorts = carriesPorts(setTransport(f, m[3]));
  setAddress(f, 'source', m[5], withPorts ? m[6] : undefined);
  setIdentity(f, 'source', m[7]);
  setMapped(f, 'source', m[9], withPorts ? m[10] : undefined);
  setInterfaces(f, m[4], m[8]);
  setDuration(f, m[11]);
  return true;
}

/** 313001/313008: ICMP to the ASA itself denied. */
function icmpDenied(body: string, f: EventFields): boolean {
  const m = PATTERNS.icmpDenied.exec(body);
  if (!m) return false;
  setTransport(f, m[1]);
  setIcmp(f, m[2], m[3]);
  setVerdict(f, 'denied');
  setAddress(f, 'source', m[4]);
  setInterfaces(f, m[5], undefined);
  return true;
}

/** 313004: an ICMP reply without the request it answers. */
function icmpNoSession(body: string, f: EventFields): boolean {
  const m = PATTERNS.icmpNoSession.exec(body);
  if (!m) return false;
  setTransport(f, m[1]);
  setIcmp(f, m[2], undefined);
  setVerdict(f, 'denied');
  setAddress(f, 'source', m[3]);
  setInterfaces(f, m[4], undefined);
  setAddress(f, 'destination', m[5]);
  return true;
}

/** 313005: an ICMP error quoting a packet of no known connection; dropped. */
function icmpErrorNoConnection(body: string, f: EventFields): boolean {
  const m = PATTERNS.icmpErrorNoConnection.exec(body);
  if (!m) return false;
  setTransport(f, m[1]);
  setVerdict(f, 'denied');
  setAddress(f, 'source', m[3]);
  setIdentity(f, 'source', m[4]);
  setAddress(f, 'destination', m[6]);
  setIdentity(f, 'destination', m[7]);
  setIcmp(f, m[8], m[9]);
  setInterfaces(f, m[10], undefined);
  if (m[11]) f['cisco.asa.original_ip_payload'] = m[11];
  return true;
}

/** 710002/710003/710005/710006: traffic to the ASA itself (management, VPN) permitted or dropped. */
function toTheBox(body: string, f: EventFields): boolean {
  const m = PATTERNS.toTheBox.exec(body);
  if (!m) return false;
  setTransport(f, m[1]);
  setVerdict(f, verdictOf(m[2]!));
  setAddress(f, 'source', m[3], m[4]);
  setAddress(f, 'destination', m[6], m[7]);
  // The service is a port number or a name ("https").
  if (m[7] && port(m[7]) === undefined) f['network.protocol'] = m[7].toLowerCase();
  // The named interface is the one the packet arrived on: it is addressed to the ASA.
  f['cisco.asa.destination_interface'] = m[5]!;
  f['observer.ingress.interface.name'] = m[5]!;
  return true;
}

/** 605004/605005: a management login (ssh, https, telnet) to the ASA. */
function login(body: string, f: EventFields): boolean {
  const m = PATTERNS.login.exec(body);
  if (!m) return false;
  const success = m[1] === 'permitted';
  f['event.category'] = ['authentication'];
  f['event.type'] = ['start'];
  f['event.outcome'] = success ? 'success' : 'failure';
  setAddress(f, 'source', m[2], m[3]);
  setAddress(f, 'destination', m[5], m[6]);
  if (m[6] && port(m[6]) === undefined) f['network.protocol'] = m[6].toLowerCase();
  f['observer.ingress.interface.name'] = m[4]!;
  f['user.name'] = m[7]!;
  return true;
}

/** 611101/611102: a user authenticated (or failed to) at the ASA. */
function userAuthentication(body: string, f: EventFields): boolean {
  const m = PATTERNS.userAuthentication.exec(body);
  if (!m) return false;
  f['event.category'] = ['authentication'];
  f['event.type'] = ['info'];
  f['event.outcome'] = m[1] === 'succeeded' ? 'success' : 'failure';
  setAddress(f, 'source', m[2]);
  f['user.name'] = m[3]!.trim();
  return true;
}

/** 733100: threat detection saw a drop rate above its limit. */
function dropRate(body: string, f: EventFields): boolean {
  const m = PATTERNS.dropRate.exec(body);
  if (!m) return false;
  f['event.kind'] = 'alert';
  f['event.category'] = ['intrusion_detection', 'network'];
  f['event.type'] = ['info'];
  f['cisco.asa.burst.object'] = m[1]!;
  f['cisco.asa.burst.id'] = m[2]!;
  f['cisco.asa.burst.current_rate'] = Number(m[3]);
  f['cisco.asa.burst.configured_rate'] = Number(m[4]);
  f['cisco.asa.burst.avg_rate'] = Number(m[5]);
  f['cisco.asa.burst.configured_avg_rate'] = Number(m[6]);
  f['cisco.asa.burst.cumulative_count'] = Number(m[7]);
  return true;
}

/** Message id -> the reader of its body. Filebeat names every firewall message "firewall-rule" unless it ends a flow. */
const HANDLERS = new Map<string, Handler>([
  ['106001', inboundTcpDenied],
  ['106002', connectionDeniedByList],
  ['106006', denyInboundFrom],
  ['106007', denyInboundFrom],
  ['106010', denySrcDst],
  ['106014', denySrcDst],
  ['106015', denyNoConnection],
  ['106016', ipSpoof],
  ['106017', fromToDenied(PATTERNS.landAttack)],
  ['106018', icmpDeniedByList],
  ['106020', fromToDenied(PATTERNS.teardrop)],
  ['106021', reversePath],
  ['106022', reversePath],
  ['106023', accessGroup],
  ['106100', accessList],
  ['106102', accessList],
  ['106103', accessList],
  ['110002', noEgressInterface],
  ['110003', noNextHop],
  ['302012', h225PreAllocate],
  ['302013', builtConnection],
  ['302014', teardownConnection],
  ['302015', builtConnection],
  ['302016', teardownConnection],
  ['302017', builtConnection],
  ['302018', teardownConnection],
  ['302020', icmpConnection],
  ['302021', icmpConnection],
  ['302023', teardownConnection],
  ['302025', teardownConnection],
  ['302027', teardownConnection],
  ['302036', teardownConnection],
  ['302304', teardownConnection],
  ['302306', teardownConnection],
  ['304001', urlAccessed],
  ['304002', urlDenied],
  ['305011', translation],
  ['305012', translation],
  ['313001', icmpDenied],
  ['313004', icmpNoSession],
  ['313005', icmpErrorNoConnection],
  ['313008', icmpDenied],
  ['605004', login],
  ['605005', login],
  ['611101', userAuthentication],
  ['611102', userAuthentication],
  ['710002', toTheBox],
  ['710003', toTheBox],
  ['710005', toTheBox],
  ['710006', toTheBox],
  ['733100', dropRate],
]);

/** Message ids that are not about network traffic (their handler sets the category). */
const NOT_NETWORK = new Set(['605004', '605005', '611101', '611102']);

// ---------------------------------------------------------------- header

/** Where the "%ASA-" tag starts, or -1. */
function tagIndex(raw: string): number {
  for (const marker of MARKERS) {
    const at = raw.indexOf(marker);
    if (at >= 0) return at;
  }
  return -1;
}

/**
 * The syslog header before the tag. A zone abbreviation after the time
 * ("09:34:34 EDT:"), which the ASA writes and syslog does not know, reads as a
 * host name there, and is applied here.
 */
function readHeader(prefix: string, ctx: ParseContext): Record<string, string | number> {
  if (prefix.trim() === '') return {};
  // The header parser needs a space after the time; a prefix ending "09:36:50:" has none left.
  const header = parseSyslogHeader(prefix.endsWith(':') ? `${prefix} ` : prefix, ctx);
  if (!header) return {};
  const zone = header.hostname ? ZONES[header.hostname] : undefined;
  if (zone !== undefined && header.timestamp && !header.program) {
    const assumed = offsetMinutes(ctx.timezone) ?? 0;
    header.timestamp = new Date(Date.parse(header.timestamp) + (assumed - zone) * 60_000).toISOString();
    header.hostname = undefined;
  }
  const fields = syslogFields(header);
  delete fields.message;
  return fields;
}

// ---------------------------------------------------------------- parser

function looksLikeAsa(raw: string): boolean {
  return tagIndex(raw) >= 0;
}

export function parseCiscoAsa(raw: string, ctx: ParseContext): EventFields | null {
  const at = tagIndex(raw);
  if (at < 0) return null;
  TAG.lastIndex = at;
  const tag = TAG.exec(raw);
  if (!tag) throw new Error(`malformed Cisco message tag: "${raw.slice(at, at + 24)}" (want %ASA-<severity>-<6-digit id>:)`);
  const [, product, severityText, code] = tag;
  const severity = Number(severityText);
  const body = raw.slice(at + tag[0].length).trimEnd();

  const fields: EventFields = readHeader(raw.slice(0, at), ctx);
  if (fields['host.hostname']) fields['observer.hostname'] = fields['host.hostname'];
  fields['observer.vendor'] = 'Cisco';
  fields['observer.product'] = product === 'FTD' ? 'ftd' : 'asa';
  fields['observer.type'] = 'firewall';
  fields['event.kind'] = 'event';
  fields['event.code'] = code!;
  fields['event.severity'] = severity;
  fields['log.level'] = LOG_LEVELS[severity]!;
  fields['cisco.asa.message_id'] = code!;
  fields.message = body;

  const handler = HANDLERS.get(code!);
  if (!handler) return fields;
  if (!NOT_NETWORK.has(code!)) {
    fields['event.category'] = ['network'];
    fields['event.action'] = FIREWALL_RULE;
  }
  if (!handler(body, fields)) {
    // A layout of this message we do not know (another software version): keep what the header says.
    fields['error.message'] = `cisco-asa: message ${code} did not match the expected layout`;
    delete fields['event.action'];
  }
  setNetworkType(fields);
  return fields;
}

function setNetworkType(fields: EventFields): void {
  const ip: FieldValue | undefined = fields['source.ip'] ?? fields['destination.ip'];
  if (typeof ip === 'string') fields['network.type'] = ip.includes(':') ? 'ipv6' : 'ipv4';
}

export const ciscoAsa: FormatParser = {
  name: 'cisco-asa',
  detect: looksLikeAsa,
  parse: parseCiscoAsa,
};
