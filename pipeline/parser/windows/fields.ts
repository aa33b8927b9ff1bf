// Field writers the Windows mappings share: accounts, processes, files and
// addresses from event data, Windows' placeholders ("-") left out.
import { canonicalIp } from '../ip.js';
import type { EventFields } from '../types.js';
import { lookupTable } from '../../../lib/lookup-table.js';
import { present } from './record.js';

/** Field names under the prefixes the mappings write accounts and processes to, spelled once. */
interface Names {
  name: string;
  domain: string;
  id: string;
  executable: string;
}
const NAMES = new Map<string, Names>(
  ['user.', 'user.target.', 'user.effective.', 'group.', 'source.user.', 'destination.user.', 'process.', 'process.parent.'].map((prefix) => [
    prefix,
    { name: `${prefix}name`, domain: `${prefix}domain`, id: `${prefix}id`, executable: `${prefix}executable` },
  ]),
);

function names(prefix: string): Names {
  const found = NAMES.get(prefix);
  if (!found) throw new Error(`no field names under ${prefix}`);
  return found;
}

/** The last part of a Windows path (C:\Windows\System32\cmd.exe -> cmd.exe). */
export function baseName(path: string): string {
  const slash = Math.max(path.lastIndexOf('\\'), path.lastIndexOf('/'));
  return slash >= 0 ? path.slice(slash + 1) : path;
}

/** Sets `field` when the value is there. */
export function put(fields: EventFields, field: string, value: string | undefined): void {
  const v = present(value);
  if (v !== undefined) fields[field] = v;
}

/** A decimal or 0x-hex number Windows writes (process ids are hex in Security events, decimal in Sysmon). */
export function windowsNumber(value: string | undefined): number | undefined {
  const v = present(value);
  if (v === undefined) return undefined;
  const n = /^0x[0-9a-fA-F]{1,16}$/.test(v) ? Number.parseInt(v, 16) : /^\d{1,16}$/.test(v) ? Number(v) : NaN;
  return Number.isSafeInteger(n) ? n : undefined;
}

/** An account under `prefix` (user., user.target., user.effective., group.): name (a UPN's user part), domain, SID. */
export function putAccount(fields: EventFields, prefix: string, name: string | undefined, domain: string | undefined, sid: string | undefined): void {
  const field = names(prefix);
  const account = present(name);
  if (account !== undefined) {
    const at = account.indexOf('@');
    fields[field.name] = at > 0 ? account.slice(0, at) : account;
  }
  put(fields, field.domain, domain);
  put(fields, field.id, sid);
}

/** "DOMAIN\user" (Sysmon's User, PowerShell's UserId) as user.domain and user.name. */
export function putQualifiedUser(fields: EventFields, prefix: string, qualified: string | undefined): void {
  const value = present(qualified);
  if (value === undefined) return;
  const field = names(prefix);
  const slash = value.indexOf('\\');
  if (slash > 0) fields[field.domain] = value.slice(0, slash);
  fields[field.name] = value.slice(slash + 1);
}

/** An executable's path and name under `prefix` (process., process.parent.). */
export function putExecutable(fields: EventFields, prefix: string, path: string | undefined): void {
  const value = present(path);
  if (value === undefined) return;
  const field = names(prefix);
  fields[field.executable] = value;
  fields[field.name] = baseName(value);
}

/** A file's path, name, directory and extension. */
export function putFile(fields: EventFields, path: string | undefined): void {
  const value = present(path);
  if (value === undefined) return;
  fields['file.path'] = value;
  const name = baseName(value);
  fields['file.name'] = name;
  if (name.length < value.length) fields['file.directory'] = value.slice(0, value.length - name.length - 1);
  const dot = name.lastIndexOf('.');
  if (dot > 0 && dot < name.length - 1) fields['file.extension'] = name.slice(dot + 1).toLowerCase();
}

/** An address field, IPv4-mapped IPv6 (::ffff:10.0.0.5, as Kerberos events write clients) as IPv4. */
export function putIp(fields: EventFields, field: string, value: string | undefined): void {
  const v = present(value);
  if (v === undefined) return;
  const ip = canonicalIp(v);
  if (ip) fields[field] = ip;
}

export function putPort(fields: EventFields, field: string, value: string | undefined): void {
  const port = windowsNumber(value);
  if (port !== undefined && port > 0 && port <= 65535) fields[field] = port;
}

/** Sysmon's hash names (lower-cased) and the fields each is written to, under process. and file. */
const HASH_FIELDS = {
  'process.': lookupTable<string>({ md5: 'process.hash.md5', sha1: 'process.hash.sha1', sha256: 'process.hash.sha256', sha384: 'process.hash.sha384', sha512: 'process.hash.sha512', imphash: 'process.pe.imphash' }),
  'file.': lookupTable<string>({ md5: 'file.hash.md5', sha1: 'file.hash.sha1', sha256: 'file.hash.sha256', sha384: 'file.hash.sha384', sha512: 'file.hash.sha512', imphash: 'file.pe.imphash' }),
};

const HEX_DIGEST = /^[0-9a-f]{32,128}$/;

/** Sysmon's Hashes ("SHA1=...,MD5=...,SHA256=...,IMPHASH=...") under `prefix` (process., file.), lower-case; all-zero digests left out. */
export function putHashes(fields: EventFields, prefix: 'process.' | 'file.', hashes: string | undefined): void {
  const value = present(hashes);
  if (value === undefined) return;
  for (const pair of value.split(',')) {
    const eq = pair.indexOf('=');
    if (eq <= 0) continue;
    const field = HASH_FIELDS[prefix][pair.slice(0, eq).trim().toLowerCase()];
    const digest = pair.slice(eq + 1).trim().toLowerCase();
    if (field !== undefined && HEX_DIGEST.test(digest) && !/^0+$/.test(digest)) fields[field] = digest;
  }
}
