// The LDAP part of login: find the user with a service account, prove the
// password by binding as the user, and read email, name and groups.
import net from 'node:net';
import type { ConnectionOptions } from 'node:tls';
import { Client, FilterParser, InvalidCredentialsError, ResultCodeError, type Entry } from 'ldapts';

export interface LdapConfig {
  serverUrl: string; // ldap://host:port or ldaps://host:port
  bindDn: string; // service account
  bindPassword: string;
  searchBase: string;
  userFilter: string; // e.g. "(uid=%s)"; every %s replaced by the user name escaped per RFC 4515
  startTls: boolean; // upgrade ldap:// with StartTLS (ignored for ldaps://, which is TLS from the start)
  tlsRejectUnauthorized: boolean;
  caCertificate?: string; // PEM of a private CA (replaces the system CAs for this server)
  emailAttribute: string; // default 'mail' (used when empty)
  nameAttribute: string; // default 'cn' (used when empty)
  groupAttribute: string; // default 'memberOf' (used when empty): attribute on the user entry listing group DNs
  groupSearchBase?: string; // when set, also find groups under it whose member/uniqueMember is the user's DN (groupOfNames / groupOfUniqueNames) or memberUid is the login name (posixGroup)
  timeoutMs: number; // connect and operation timeout (10 s when not positive: ldapts treats 0 as "wait forever")
}

export interface LdapIdentity {
  dn: string;
  email: string;
  name: string;
  groups: string[]; // group DNs, lower-cased
}

export type LdapLoginResult =
  | { ok: true; identity: LdapIdentity }
  | { ok: false; reason: 'invalid_credentials' | 'unavailable' | 'misconfigured'; detail: string };

type LdapFailure = Extract<LdapLoginResult, { ok: false }>;

export interface LdapTestStep {
  name: 'connect' | 'service_bind' | 'search';
  passed: boolean;
  message: string;
}

/** RFC 4515: \ * ( ) NUL and every non-ASCII byte of the UTF-8 encoding become \xx. */
export function escapeFilterValue(value: string): string {
  let escaped = '';
  for (const byte of Buffer.from(value, 'utf8')) {
    const special = byte === 0x00 || byte === 0x28 || byte === 0x29 || byte === 0x2a || byte === 0x5c || byte >= 0x80;
    escaped += special ? `\\${byte.toString(16).padStart(2, '0')}` : String.fromCharCode(byte);
  }
  return escaped;
}

export function userFilterFor(template: string, userName: string): string {
  // split/join, not replaceAll: a string replacement would expand `$&` and
  // friends in the user name.
  return template.split('%s').join(escapeFilterValue(userName));
}

const utf8 = new TextDecoder('utf-8', { fatal: true });

/**
 * ldapts 9 decodes each \xx escape to one UTF-16 code unit and then encodes
 * the filter as UTF-8, so an escaped "ü" (\c3\bc) reaches the server as four
 * wrong bytes and never matches. RFC 4515 also allows raw UTF-8 in a filter,
 * so runs of escaped non-ASCII bytes that form valid UTF-8 are handed to
 * ldapts as the characters they encode; the ASCII escapes that stop filter
 * injection (\2a \28 \29 \5c \00) stay escaped.
 */
function filterForLdapts(filter: string): string {
  return filter.replace(/(?:\\[89a-f][0-9a-f])+/gi, (run) => {
    try {
      return utf8.decode(Buffer.from(run.replaceAll('\\', ''), 'hex'));
    } catch {
      return run;
    }
  });
}

/** A setting that cannot work, told apart from a server that does not answer. */
class ConfigError extends Error {}

/** One line of plain text for logs and the admin's test page; never a stack. */
function errorText(err: unknown): string {
  let text: string;
  if (err instanceof ResultCodeError) {
    // ldapts appends " Code: 0x31" and keeps an empty server message as is.
    const serverText = err.message.replace(/\s*Code: 0x[0-9a-f]+$/i, '').trim();
    const kind = err.name.replace(/Error$/, '').replace(/([a-z])([A-Z])/g, '$1 $2').toLowerCase();
    text = `${kind} (LDAP result ${err.code})${serverText ? `: ${serverText}` : ''}`;
  } else if (err instanceof AggregateError && err.errors.length > 0) {
    // Node's happy-eyeballs connect (localhost -> ::1 and 127.0.0.1) fails
    // with an AggregateError whose own message is empty.
    text = err.errors.map((e) => errorText(e)).join('; ');
  } else if (err instanceof Error) {
    text = err.message || (err as NodeJS.ErrnoException).code || err.name;
  } else {
    text = String(err);
  }
  return text.replace(/\s+/g, ' ').trim();
}

function failure(reason: LdapFailure['reason'], detail: string): LdapFailure {
  return { ok: false, reason, detail };
}

// Result codes that say the server is there but cannot serve us right now.
const TRANSIENT_RESULT_CODES = new Set([3 /* timeLimitExceeded */, 11 /* adminLimitExceeded */, 51 /* busy */, 52 /* unavailable */]);

function classify(err: unknown, during: string): LdapFailure {
  const detail = `${during}: ${errorText(err)}`;
  if (err instanceof ConfigError) return failure('misconfigured', detail);
  if (err instanceof ResultCodeError) {
    // The server answered and refused something we sent from the settings
    // (service account, search base, filter); the user cannot fix that.
    return failure(TRANSIENT_RESULT_CODES.has(err.code) ? 'unavailable' : 'misconfigured', detail);
  }
  return failure('unavailable', detail);
}

function withDefaults(config: LdapConfig): LdapConfig {
  return {
    ...config,
    emailAttribute: config.emailAttribute.trim() || 'mail',
    nameAttribute: config.nameAttribute.trim() || 'cn',
    groupAttribute: config.groupAttribute.trim() || 'memberOf',
    timeoutMs: config.timeoutMs > 0 ? config.timeoutMs : 10_000,
  };
}

function checkFilter(filter: string): string {
  try {
    FilterParser.parseString(filter);
  } catch (err) {
    throw new ConfigError(`invalid LDAP filter ${filter}: ${errorText(err)}`);
  }
  return filterForLdapts(filter);
}

/** The user filter as logs show it, and as ldapts needs it. */
function userSearchFilter(config: LdapConfig, userName: string): { shown: string; sent: string } {
  // Without %s every login would search for the same entry or entries.
  if (!config.userFilter.includes('%s')) throw new ConfigError(`user filter ${config.userFilter} has no %s for the user name`);
  const shown = userFilterFor(config.userFilter, userName);
  return { shown, sent: checkFilter(shown) };
}

/** A connected client, TLS-upgraded when asked; not yet bound. */
async function openClient(config: LdapConfig): Promise<Client> {
  let url: URL;
  try {
    url = new URL(config.serverUrl);
  } catch {
    throw new ConfigError(`${config.serverUrl} is not a URL (expected ldap://host:port or ldaps://host:port)`);
  }
  if (url.protocol !== 'ldap:' && url.protocol !== 'ldaps:') {
    throw new ConfigError(`${config.serverUrl} is not an ldap:// or ldaps:// URL`);
  }
  const tlsOptions: ConnectionOptions = {
    rejectUnauthorized: config.tlsRejectUnauthorized,
    ...(config.caCertificate ? { ca: [config.caCertificate] } : {}),
  };
  const secure = url.protocol === 'ldaps:';
  const client = new Client({
    url: config.serverUrl,
    connectTimeout: config.timeoutMs,
    timeout: config.timeoutMs,
    // Only for ldaps: ldapts opens a TLS socket whenever tlsOptions are
    // given, which on an ldap:// port would fail before StartTLS.
    ...(secure ? { tlsOptions } : {}),
  });
  if (config.startTls && !secure) {
    const host = url.hostname.replace(/^\[(.*)\]$/, '$1');
    try {
      // startTLS() connects first; it checks the certificate against `host`,
      // and SNI must not carry an IP address.
      await client.startTLS({ ...tlsOptions, host, ...(net.isIP(host) ? {} : { servername: host }) });
    } catch (err) {
      await closeClient(client);
      throw err;
    }
  }
  return client;
}

async function closeClient(client: Client | undefined): Promise<void> {
  // A dead connection has nothing left to close; the outcome is already known.
  await client?.unbind().catch(() => {});
}

/** Every value of `attribute` (matched case-insensitively, as LDAP does) as text. */
function attributeValues(entry: Entry, attribute: string): string[] {
  const wanted = attribute.toLowerCase();
  const values: string[] = [];
  for (const [key, raw] of Object.entries(entry)) {
    if (key === 'dn' || key.toLowerCase() !== wanted) continue;
    for (const value of Array.isArray(raw) ? raw : [raw]) {
      const text = Buffer.isBuffer(value) ? value.toString('utf8') : String(value);
      if (text.trim() !== '') values.push(text.trim());
    }
  }
  return values;
}

const LOOKS_LIKE_EMAIL = /^[^\s@]+@[^\s@]+\.[^\s@]+$/;

export async function ldapLogin(config: LdapConfig, userName: string, password: string): Promise<LdapLoginResult> {
  if (userName.trim() === '') return failure('invalid_credentials', 'empty user name');
  // An empty password makes a simple bind "unauthenticated" (RFC 4513 5.1.2),
  // which many servers accept without checking anything.
  if (password === '') return failure('invalid_credentials', 'empty password refused');
  const settings = withDefaults(config);
  let service: Client | undefined;
  let user: Client | undefined;
  let during = 'settings';
  try {
    const userFilter = userSearchFilter(settings, userName);
    during = 'connect';
    service = await openClient(settings);

    during = `service bind as ${settings.bindDn}`;
    try {
      await service.bind(settings.bindDn, settings.bindPassword);
    } catch (err) {
      if (err instanceof InvalidCredentialsError) throw new ConfigError('the service account was refused (check bindDn and bindPassword)');
      throw err;
    }

    during = `user search under ${settings.searchBase}`;
    const { searchEntries } = await service.search(settings.searchBase, {
      scope: 'sub',
      sizeLimit: 2,
      filter: userFilter.sent,
      attributes: [settings.emailAttribute, settings.nameAttribute, settings.groupAttribute],
    });
    const entry = searchEntries[0];
    if (!entry || searchEntries.length > 1) {
      // The caller shows one answer for both, so an attacker cannot probe
      // which names exist; the detail is for the logs.
      const found = entry ? 'more than one entry matches' : 'no entry matches';
      return failure('invalid_credentials', `${found} ${userFilter.shown} under ${settings.searchBase}`);
    }

    during = `user bind as ${entry.dn}`;
    user = await openClient(settings);
    try {
      await user.bind(entry.dn, password);
    } catch (err) {
      if (err instanceof InvalidCredentialsError) return failure('invalid_credentials', `${during}: ${errorText(err)}`);
      throw err;
    }

    const email = attributeValues(entry, settings.emailAttribute)[0] ?? (LOOKS_LIKE_EMAIL.test(userName) ? userName : undefined);
    if (!email) return failure('misconfigured', `${entry.dn} has no ${settings.emailAttribute} and the user name is not an email address`);
    const name = attributeValues(entry, settings.nameAttribute)[0] ?? userName;

    const groups = attributeValues(entry, settings.groupAttribute);
    if (settings.groupSearchBase) {
      during = `group search under ${settings.groupSearchBase}`;
      const dn = escapeFilterValue(entry.dn);
      const found = await service.search(settings.groupSearchBase, {
        scope: 'sub',
        filter: checkFilter(`(|(member=${dn})(uniqueMember=${dn})(memberUid=${escapeFilterValue(userName)}))`),
        attributes: ['1.1'], // only the DNs
      });
      groups.push(...found.searchEntries.map((group) => group.dn));
    }
    return { ok: true, identity: { dn: entry.dn, email, name, groups: [...new Set(groups.map((group) => group.toLowerCase()))] } };
  } catch (err) {
    return classify(err, during);
  } finally {
    await closeClient(user);
    await closeClient(service);
  }
}

const WHO_AM_I = '1.3.6.1.4.1.4203.1.11.3';

/** The settings page's "Test connection": where exactly it breaks, step by step. */
export async function testLdap(config: LdapConfig, userName?: string): Promise<{ success: boolean; steps: LdapTestStep[] }> {
  const settings = withDefaults(config);
  const steps: LdapTestStep[] = [];
  let client: Client | undefined;

  async function step(name: LdapTestStep['name'], run: () => Promise<string>): Promise<void> {
    const failed = steps.find((s) => !s.passed);
    if (failed) {
      steps.push({ name, passed: false, message: `not run: ${failed.name} failed` });
      return;
    }
    try {
      steps.push({ name, passed: true, message: await run() });
    } catch (err) {
      steps.push({ name, passed: false, message: errorText(err) });
    }
  }

  try {
    await step('connect', async () => {
      client = await openClient(settings);
      const ldaps = /^ldaps:/i.test(settings.serverUrl);
      const startTls = settings.startTls && !ldaps;
      if (!startTls) {
        // ldapts connects lazily (StartTLS above already made it connect);
        // any LDAP answer, even a refusal, proves the server speaks LDAP.
        try {
          await client.exop(WHO_AM_I);
        } catch (err) {
          if (!(err instanceof ResultCodeError)) throw err;
        }
      }
      return `connected to ${settings.serverUrl}${ldaps ? ' over TLS' : startTls ? ' with StartTLS' : ''}`;
    });
    await step('service_bind', async () => {
      await client!.bind(settings.bindDn, settings.bindPassword);
      return `bound as ${settings.bindDn}`;
    });
    await step('search', async () => {
      // Checked even without a user name: a broken filter would fail every login.
      const filter = userSearchFilter(settings, userName || 'cairn-test');
      if (userName) {
        const { searchEntries } = await client!.search(settings.searchBase, { scope: 'sub', sizeLimit: 2, filter: filter.sent, attributes: ['1.1'] });
        // A green step must mean this user could log in, which needs exactly one entry.
        if (searchEntries.length === 1) return `${filter.shown} under ${settings.searchBase} found 1 entry: ${searchEntries[0]!.dn}`;
        const count = searchEntries.length === 0 ? 'no entry' : 'more than one entry';
        throw new Error(`${filter.shown} under ${settings.searchBase} found ${count}; login needs exactly one`);
      }
      await client!.search(settings.searchBase, { scope: 'sub', sizeLimit: 1, attributes: ['1.1'] });
      return `${settings.searchBase} answers searches`;
    });
  } finally {
    await closeClient(client);
  }
  return { success: steps.every((s) => s.passed), steps };
}
