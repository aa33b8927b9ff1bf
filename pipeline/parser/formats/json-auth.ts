// JSON objects that describe an authentication (an app's login log, a VPN or SSO
// export) as the ECS fields of an sshd login; other JSON is left to the generic reader.
import { parseIsoTime } from '../syslog-header.js';
import { canonicalIp } from '../ip.js';
import type { EventFields, FieldValue, FormatParser, ParseContext } from '../types.js';
import { flattenInto, normalizeEcs } from './generic-json.js';
import { setOwn } from '../../../lib/lookup-table.js';

// Spellings of the same thing in hand-rolled JSON, best first; keys are the flattened (dotted) names.
const USER_KEYS = ['user.name', 'username', 'user_name', 'userName', 'user', 'login', 'account', 'principal'];
const SOURCE_IP_KEYS = ['source.ip', 'client.ip', 'src_ip', 'srcip', 'source_ip', 'client_ip', 'clientip', 'remote_ip', 'remote_addr', 'ip_address', 'ipAddress', 'sourceIPAddress', 'ip', 'src'];
const SOURCE_PORT_KEYS = ['source.port', 'client.port', 'src_port', 'source_port', 'client_port', 'remote_port'];
const TIME_KEYS = ['@timestamp', 'timestamp', 'time', 'ts', 'eventTime', 'event_time', 'datetime', 'date'];
const HOST_KEYS = ['host.hostname', 'host.name', 'hostname', 'host', 'server'];
const ACTION_KEYS = ['event.action', 'action', 'event', 'event_type', 'eventName', 'type'];
const OUTCOME_KEYS = ['event.outcome', 'outcome', 'result', 'status', 'success', 'successful', 'authenticated'];
/** Keys this parser turns into ECS fields itself; the rest pass through normalizeEcs. */
const CONSUMED = new Set([...USER_KEYS, ...SOURCE_IP_KEYS, ...SOURCE_PORT_KEYS, ...TIME_KEYS, ...HOST_KEYS, ...ACTION_KEYS, ...OUTCOME_KEYS]);

// Cheap pre-test: an object with a key that an auth event has.
const AUTH_KEY = /"(?:user(?:\.name|name|_name|Name)?|login|(?:event\.)?(?:outcome|action|category)|result|success(?:ful)?|authenticated|event(?:_type|Name)?|status)"\s*:/;
// Words of an authentication in an action name; not "ssh" or "session", which network and web logs use for other things.
const AUTH_WORDS = /log[_ -]?[io]n|sign[_ -]?[io]n|auth|passw|mfa|2fa|otp|credential|sso|saml|oauth|kerberos/i;
const SUCCESS_WORDS = /^(?:success(?:ful)?|succeeded|ok|pass(?:ed)?|accept(?:ed)?|allow(?:ed)?|granted|true|1|authenticated|logged[_ -]?in)$/i;
const FAILURE_WORDS = /^(?:fail(?:ed|ure)?|error|denied|deny|reject(?:ed)?|invalid|blocked|locked|false|0|unauthori[sz]ed|bad[_ -]?password)$/i;
const FAILURE_IN_ACTION = /fail|denied|reject|invalid|bad[_ -]?pass/i;
const SUCCESS_IN_ACTION = /success|succeeded|accepted|granted/i;
// An ISO time without a zone is in ctx.timezone, as in syslog; Date.parse would take the process's zone.
const ZONELESS_ISO = /^\d{4}-\d{2}-\d{2}[T ]\d{2}:\d{2}:\d{2}(?:\.\d+)?$/;

type Flat = Record<string, FieldValue>;

/** The object's fields under dotted names, as the generic JSON parser flattens them. */
function flatten(value: Record<string, unknown>): Flat {
  const out: Flat = {};
  flattenInto(out, value, '');
  return out;
}

/** The first of `keys` that holds a string or number, as a string. */
function pick(flat: Flat, keys: readonly string[]): string | undefined {
  for (const key of keys) {
    const v = flat[key];
    if (typeof v === 'string' ? v !== '' : typeof v === 'number') return String(v);
  }
  return undefined;
}

function outcomeOf(flat: Flat, action: string | undefined): 'success' | 'failure' | undefined {
  for (const key of OUTCOME_KEYS) {
    const v = flat[key];
    if (v === undefined) continue;
    if (typeof v === 'boolean') return v ? 'success' : 'failure';
    const text = String(v);
    if (SUCCESS_WORDS.test(text)) return 'success';
    if (FAILURE_WORDS.test(text)) return 'failure';
  }
  if (action && FAILURE_IN_ACTION.test(action)) return 'failure';
  if (action && SUCCESS_IN_ACTION.test(action)) return 'success';
  return undefined;
}

/** Epoch seconds or milliseconds, ISO 8601 (zoneless means ctx.timezone), or what Date.parse reads. */
function timestampOf(value: string, ctx: ParseContext): string {
  if (/^\d+(?:\.\d+)?$/.test(value)) {
    const n = Number(value);
    return new Date(n > 1e12 ? n : n * 1000).toISOString();
  }
  const iso = ZONELESS_ISO.test(value) ? parseIsoTime(value, ctx) : undefined;
  if (iso) return iso;
  const ms = Date.parse(value);
  if (Number.isNaN(ms)) throw new Error(`auth event time "${value}" is not a date`);
  return new Date(ms).toISOString();
}

/** event.category as an array, when the object already speaks ECS. */
function categoriesOf(flat: Flat): (string | number)[] {
  const category = flat['event.category'];
  return Array.isArray(category) ? category : category === undefined ? [] : [String(category)];
}

function isAuthEvent(flat: Flat, user: string | undefined, action: string | undefined, outcome: string | undefined): boolean {
  if (categoriesOf(flat).includes('authentication')) return true;
  if (action && AUTH_WORDS.test(action)) return true;
  return user !== undefined && outcome !== undefined;
}

function authFields(flat: Flat, ctx: ParseContext): EventFields | null {
  const user = pick(flat, USER_KEYS);
  const action = pick(flat, ACTION_KEYS);
  const outcome = outcomeOf(flat, action);
  if (!isAuthEvent(flat, user, action, outcome)) return null;

  const rest: Flat = {};
  for (const key of Object.keys(flat)) if (!CONSUMED.has(key)) setOwn(rest, key, flat[key]!);
  const fields = normalizeEcs(rest);
  fields['event.kind'] ??= 'event';
  const categories = categoriesOf(flat);
  fields['event.category'] = categories.includes('authentication') ? categories : ['authentication'];
  fields['event.type'] ??= ['info'];
  if (action) fields['event.action'] = action;
  if (outcome) fields['event.outcome'] = outcome;
  if (user) fields['user.name'] = user;
  const address = pick(flat, SOURCE_IP_KEYS);
  const ip = address ? canonicalIp(address) : null;
  if (ip) fields['source.ip'] = ip;
  else if (address) fields['source.address'] = address;
  const port = pick(flat, SOURCE_PORT_KEYS);
  if (port && /^\d+$/.test(port)) fields['source.port'] = Number(port);
  const host = pick(flat, HOST_KEYS);
  if (host) fields['host.hostname'] = host;
  const time = pick(flat, TIME_KEYS);
  if (time) fields['@timestamp'] = timestampOf(time, ctx);
  return fields;
}

export const jsonAuth: FormatParser = {
  name: 'json-auth',
  detect: (raw) => raw.trimStart().startsWith('{') && AUTH_KEY.test(raw),
  parse(raw, ctx) {
    if (!raw.trimStart().startsWith('{')) return null;
    let value: unknown;
    try {
      value = JSON.parse(raw);
    } catch (err) {
      // Only an object that looked like an auth event is "this format, malformed".
      if (!AUTH_KEY.test(raw)) return null;
      throw new Error(`auth event is not valid JSON: ${(err as Error).message}`);
    }
    if (value === null || typeof value !== 'object' || Array.isArray(value)) return null;
    return authFields(flatten(value as Record<string, unknown>), ctx);
  },
};
