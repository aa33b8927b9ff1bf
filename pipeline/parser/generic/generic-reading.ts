// The generic reading: what any log line says about itself when no decoder
// knows its program's shapes. It runs last (after the catalogue's fallback
// services) and marks what it sets with cairn.decoder: "generic", so analysts
// and rules can tell a guess from structure apart from a specific reading.
//
//   the peer      from the places logs put it: "from A", "client A", "rhost=A",
//                 "rip=A", "src=A", "[A]:port", "A#port", "A port N",
//                 "name[A]", "remote host A", "by A"; a host name there (with
//                 a dot) becomes source.domain
//   the verdict   event.outcome and event.type from the message's verbs
//   the category  event.category from its vocabulary, ECS values only
//   key=value     source/destination from the common keys (the alias table of
//                 formats/generic-json.ts), action=allow|deny|... as the verdict
//
// Text a client controls never gives the peer: quoted values, paths, URLs
// and query strings, e-mail addresses and the word after "user" are masked
// before the peer is looked for (Invalid user 1.2.3.4 from 5.6.7.8 is 5.6.7.8).
// A line that says nothing of these gets nothing: no category is invented.
import { canonicalIp } from '../ip.js';
import { normalizeEcs, verdictOfAction } from '../formats/generic-json.js';
import type { EventFields } from '../types.js';
import { setOwn } from '../../../lib/lookup-table.js';

export const GENERIC_DECODER = 'generic';

/** Lines longer than this are read only in their first part: a peer or verb after it is not worth unbounded work. */
const MAX_TEXT = 8192;

// --- masking what a client controls ----------------------------------------
// Each replaces what it finds with filler of the same length, so positions hold.
// Every pattern here runs in time linear in the line (no open-ended run that
// a failed match would rescan from the next character).
const FILLER = '\u0000';
/** What masked text is filled with: a capture holding it reached into text a client wrote. */
export const MASK = FILLER;

/** Quoted values: "...", '...', `...` (a quote without its pair masks nothing). */
const QUOTED = /"[^"]*"|'[^']*'|`[^`]*`/g;
/** The value of user=, login=, account: ... (a name the client typed). */
const USER_VALUE = /\b(?:user(?:name)?|login|account|acct|ruser|logname)\s?[=:]\s?<?[^\s,;>]*/gi;
/** A run of text between spaces, quotes and angle brackets: where URLs, paths, queries and e-mail addresses live. */
const TOKEN = /[^\s"'<>]+/g;
const PATH_SLASH_AFTER = /[\w.\]]/;

/**
 * A token as far as a client wrote it: all of it for a URL (://), a query
 * string (? then =) or an e-mail address (@ after its first character); from
 * the first "/" that starts a path (not one inside a word: "tcp/http" stays).
 */
function maskToken(token: string): string {
  const query = token.indexOf('?');
  if (token.includes('://') || (query >= 0 && token.indexOf('=', query) > query) || token.indexOf('@') > 0) return FILLER.repeat(token.length);
  for (let i = token.indexOf('/'); i >= 0; i = token.indexOf('/', i + 1)) {
    if (i === 0 || !PATH_SLASH_AFTER.test(token[i - 1]!)) return token.slice(0, i) + FILLER.repeat(token.length - i);
  }
  return token;
}

function fill(match: string): string {
  return FILLER.repeat(match.length);
}

/** Masked for every use: quoted values, URLs and paths, query strings, e-mail addresses, user= values. */
function maskQuotedAndTokens(text: string): string {
  let out = /["'`]/.test(text) ? text.replace(QUOTED, fill) : text;
  if (/[/?@]/.test(out)) out = out.replace(TOKEN, maskToken);
  return /[=:]/.test(out) ? out.replace(USER_VALUE, fill) : out;
}

/**
 * Masked too before the peer is looked for (but not before the verbs are
 * read: "user added" must stay readable): the word after "user" or "as" (not
 * a verdict word: "user unknown"), and the word after "for" that precedes "from".
 */
const USER_WORDS: RegExp[] = [
  /(?<=\b(?:user|as)(?: <| ))(?!(?:unknown|not|does|doesn't|failed|authentication|login|logged|session|from|by|for|name|id)\b)[^\s,;>]+/gi,
  /(?<=\bfor )\S+(?= from\b)/gi,
];

function maskUserWords(text: string): string {
  return USER_WORDS.reduce((out, re) => out.replace(re, fill), text);
}

/**
 * `text` with what a client controls filled with MASK, positions kept: quoted
 * values, URLs and paths, query strings, e-mail addresses, user= values, and
 * the word after "user", "as" and "for ... from" (the keywords stay readable).
 */
export function maskClientText(text: string): string {
  return maskUserWords(maskQuotedAndTokens(text));
}

// --- the peer ---------------------------------------------------------------
const IPV4 = String.raw`\d{1,3}(?:\.\d{1,3}){3}`;
const IPV6 = String.raw`(?:[0-9A-Fa-f]{0,4}:){2,7}(?:\d{1,3}(?:\.\d{1,3}){3}|[0-9A-Fa-f]{0,4})`;
const IP = `(?:${IPV6}|${IPV4})`;
/** An address not glued to more of a word, a version or a path on either side. */
const END = String.raw`(?![\w.:]*[\w])`;
const HOST = String.raw`[A-Za-z0-9](?:[A-Za-z0-9-]*[A-Za-z0-9])?(?:\.[A-Za-z0-9](?:[A-Za-z0-9-]*[A-Za-z0-9])?)+`;

/**
 * The peer's places, most telling first. Each has the address in `ip`, or a
 * host name in `host`; the last occurrence of the first place found wins,
 * because logs append the peer to what the client said.
 */
const PEER_PLACES: RegExp[] = [
  // Keys of key=value and of PAM/Dovecot: rhost=A, rip=A, src=A, client=A, remote_addr=A.
  new RegExp(String.raw`(?<![\w.-])(?:rhost|rip|src|srcip|src_ip|client|client_ip|clientip|remote_addr|remote_ip|remoteip|peer|ip|addr|address)[=:] ?\[?(?:::ffff:)?(?<ip>${IP})${END}`, 'gi'),
  // Words: from A, client A, connect(ion) from A, remote host A, by A, host A, peer A, address A;
  // the value may be "name [A]", "name (A)", "name[A]" or a bare name.
  new RegExp(
    String.raw`\b(?:from|client|remote host|by|peer|host|address|source)(?: (?:ip|address|host))?:? ?(?:(?<host>${HOST})(?: ?[\[(](?:::ffff:)?(?<ip2>${IP})[\])])?|[\[(]?(?:::ffff:)?(?<ip>${IP})${END})`,
    'gi',
  ),
  // Structure: [A]:port (not exim's own interface I=[A]:port), A#port (BIND), A port N (not a local "on/to/at A port N"), name[A].
  new RegExp(String.raw`(?<!I=)\[(?:::ffff:)?(?<ip>${IP})\]:\d{1,5}\b|(?<![\w.:])(?<ip2>${IP})#\d{1,5}\b|(?<!\b(?:on|to|at|bind|listening on) )(?<![\w.:])(?<ip3>${IP}) port \d{1,5}\b|[\w.-]\[(?:::ffff:)?(?<ip4>${IP})\]`, 'g'),
];
/** Host names that are file or unit names, not peers. */
const NOT_A_HOST = /\.(?:service|socket|target|timer|mount|conf|cfg|log|txt|php|html?|js|py|sh|pid|sock|json|xml|yaml|yml|so|d|ini|lock|tmp|gz|zip)$/i;

interface Peer {
  ip?: string;
  domain?: string;
}

function lastPeer(masked: string, place: RegExp): Peer | undefined {
  let found: Peer | undefined;
  place.lastIndex = 0;
  for (let m = place.exec(masked); m; m = place.exec(masked)) {
    const g = m.groups!;
    // A host-shaped value may be an address itself ("from 192.0.2.1").
    const address = g.ip ?? g.ip2 ?? g.ip3 ?? g.ip4 ?? g.host;
    const ip = address ? canonicalIp(address) : null;
    if (ip) found = { ip };
    else if (g.host && address === g.host && !NOT_A_HOST.test(g.host) && /[A-Za-z]{2,}$/.test(g.host)) found = { domain: g.host.toLowerCase() };
    if (m[0].length === 0) place.lastIndex++;
  }
  return found;
}

function findPeer(masked: string): Peer | undefined {
  for (const place of PEER_PLACES) {
    const peer = lastPeer(masked, place);
    if (peer) return peer;
  }
  return undefined;
}

// --- the verdict --------------------------------------------------------------
// Access decisions (type denied), other failures, successes that start something,
// successes that allow something, and ends.
const DENIED = /\b(?:denied|refused|rejected|reject|blocked|dropped|forbidden|not allowed|unauthori[sz]ed|banned|deny)\b/i;
const FAILED = /\b(?:fail(?:ed|ure|s)?|invalid|incorrect|unknown user|no such user|bad password|wrong password|mismatch|illegal)\b/i;
const STARTED = /\b(?:opened|started|connected|logged in|established|new connection)\b/i;
const ALLOWED = /\b(?:accepted|allowed|granted|permitted|authenticated|success(?:ful(?:ly)?)?|succeeded)\b/i;
const ENDED = /\b(?:closed|disconnected|stopped|terminated|logged out|ended|exited)\b/i;

// --- the category -----------------------------------------------------------
interface Vocabulary {
  category: string;
  words: RegExp;
  /** event.type when the verbs say nothing more specific. */
  type?: string;
}

// First match wins: the more specific vocabulary first.
const VOCABULARY: Vocabulary[] = [
  { category: 'session', words: /\bsession (?:opened|closed|started|ended|terminated)\b/i },
  { category: 'iam', words: /\b(?:(?:new |add(?:ed)? |delete[ds]? |remove[ds]? )(?:user|group|account)|(?:user|group|account) (?:added|created|deleted|removed|changed|modified|renamed|locked|unlocked))\b/i },
  { category: 'malware', words: /\b(?:virus|malware|infected|trojan|ransomware|worm detected)\b/i },
  { category: 'intrusion_detection', words: /\b(?:attack|intrusion|exploit|port ?scan|scan(?:ning)? detected|brute[- ]?force)\b/i },
  { category: 'authentication', words: /\b(?:log ?in|logon|log on|sign[- ]?in|authenticat\w*|auth|password|passwd|credentials?|2fa|otp)\b/i },
  { category: 'configuration', words: /\b(?:config(?:uration)? (?:changed|reloaded|updated|modified)|reload(?:ed|ing)? (?:config(?:uration)?|settings)|configuration reload)\b/i, type: 'change' },
  { category: 'process', words: /\b(?:(?:service|daemon|process|server|worker) (?:started|stopped|starting|stopping|exited|terminated|killed|crashed)|(?:started|stopped|starting|stopping) (?:service|daemon|process))\b/i },
  { category: 'host', words: /\b(?:system (?:shutdown|reboot|halt)|shutting down|rebooting|system boot)\b/i },
  { category: 'file', words: /\bfiles? (?:\S+ )?(?:created|deleted|removed|modified|changed|opened|written|renamed|not found|does not exist|uploaded|downloaded)\b/i },
  { category: 'network', words: /\b(?:dns query|query|connection|connect(?:ed)?|port|packet|firewall|socket|tcp|udp|icmp)\b/i },
];

const NETWORK = VOCABULARY.find((v) => v.category === 'network')!;

function categoryOf(text: string): Vocabulary | undefined {
  return VOCABULARY.find((v) => v.words.test(text));
}

/** The ECS type for the category, the verbs and the peer's verdict. */
function typeOf(vocabulary: Vocabulary | undefined, text: string, verdict: Verdict): string[] {
  const category = vocabulary?.category;
  if (category === 'iam') {
    const subject = /\bgroup\b/i.test(text) ? 'group' : 'user';
    const change = /\b(?:new|add(?:ed)?|created)\b/i.test(text) ? 'creation' : /\b(?:delete[ds]?|removed?)\b/i.test(text) ? 'deletion' : 'change';
    return [subject, change];
  }
  if (verdict.type) return [verdict.type];
  return [vocabulary?.type ?? 'info'];
}

interface Verdict {
  outcome?: 'success' | 'failure';
  type?: string;
}

function verdictOf(text: string): Verdict {
  if (DENIED.test(text)) return { outcome: 'failure', type: 'denied' };
  if (FAILED.test(text)) return { outcome: 'failure' };
  if (STARTED.test(text)) return { outcome: 'success', type: 'start' };
  if (ALLOWED.test(text)) return { outcome: 'success', type: 'allowed' };
  if (ENDED.test(text)) return { type: 'end' };
  return {};
}

// --- key=value ------------------------------------------------------------
const PAIR = /(?<![\w.-])([A-Za-z_][\w.-]*)=("(?:[^"\\]|\\.)*"|[^\s,;]*)/g;
/** What the generic reading takes from a key=value message: the peer, the other side, the verdict. */
const KV_FIELDS = new Set(['source.ip', 'source.port', 'destination.ip', 'destination.port', 'network.transport', 'event.action', 'user.name']);

function readPairs(text: string): EventFields | undefined {
  const pairs: EventFields = {};
  let count = 0;
  for (const m of text.matchAll(PAIR)) {
    const value = m[2]!.startsWith('"') ? m[2]!.slice(1, -1) : m[2]!;
    if (value !== '') setOwn(pairs, m[1]!, value);
    count++;
  }
  if (count < 2) return undefined;
  const normalized = normalizeEcs(pairs);
  const fields: EventFields = {};
  for (const [name, value] of Object.entries(normalized)) if (KV_FIELDS.has(name)) fields[name] = value;
  return fields;
}

export interface GenericOptions {
  /**
   * Whether the message's verbs may set event.outcome and event.type: not
   * for a program whose own readers know its verdicts (they passed on this
   * line, and may have done so on purpose: text a client injected), as the
   * catalogue's unclaimed_only fallbacks do. Default true.
   */
  verdicts?: boolean;
}

/**
 * Reads `message` generically into `fields` (which may hold a header's
 * fields already; they are kept). True when it found a peer, a verdict or
 * a category; false leaves `fields` as they were.
 */
export function readGeneric(message: string, fields: EventFields, options: GenericOptions = {}): boolean {
  const text = message.length > MAX_TEXT ? message.slice(0, MAX_TEXT) : message;
  const read: EventFields = {};
  const pairs = text.includes('=') ? readPairs(text) : undefined;
  if (pairs) Object.assign(read, pairs);

  const masked = maskQuotedAndTokens(text);
  if (read['source.ip'] === undefined) {
    const peer = findPeer(maskUserWords(masked));
    if (peer?.ip) read['source.ip'] = peer.ip;
    else if (peer?.domain) read['source.domain'] = peer.domain;
  }

  // The verbs of the text (masked: a user named "failed" or a URL /login-denied says nothing), else the kv action.
  const words = masked.replace(/\u0000+/g, ' ');
  const action = typeof read['event.action'] === 'string' ? verdictOfAction(read['event.action']) : undefined;
  const verdict: Verdict = options.verdicts === false ? {} : (action ?? verdictOf(words));
  // A firewall-style key=value line (an action, or both ends of a flow) is network traffic.
  const vocabulary = categoryOf(words) ?? (action || read['destination.ip'] !== undefined ? NETWORK : undefined);

  if (!vocabulary && verdict.outcome === undefined && verdict.type === undefined && read['source.ip'] === undefined && read['source.domain'] === undefined) return false;
  // A category only where the vocabulary says one; the verdict's type and outcome even without.
  if (vocabulary) read['event.category'] = [vocabulary.category];
  if (vocabulary || verdict.type) read['event.type'] = typeOf(vocabulary, words, verdict);
  if (verdict.outcome) read['event.outcome'] = verdict.outcome;
  for (const [name, value] of Object.entries(read)) if (fields[name] === undefined) fields[name] = value;
  fields['cairn.decoder'] = GENERIC_DECODER;
  return true;
}
