// Country and autonomous system of public addresses, from databases shipped
// as npm packages and read once per process, in memory:
// - country: @ip-location-db/geo-whois-asn-country-mmdb (CC0-1.0, built from
//   the regional registries' WHOIS and ASN data), MaxMind format, read with
//   the maxmind package;
// - AS number and organisation: @ip-location-db/asn (CC BY 4.0: RouteViews
//   and the DB-IP IP to ASN Lite database, https://db-ip.com), sorted ranges
//   in CSV, loaded into typed arrays and binary-searched.
// Private, loopback, link-local, CGNAT, multicast, documentation and other
// reserved ranges get nothing. A lookup costs a few microseconds.
import fs from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import ipaddr from 'ipaddr.js';
import { Reader, type CountryResponse } from 'maxmind';

export interface AsInfo {
  number: number;
  organization_name: string;
}

export interface GeoInfo {
  country_iso_code: string | null;
  as: AsInfo | null;
}

export interface GeoIpVersion {
  country: string;
  asn: string;
  /** When the country database was built (its MaxMind metadata). */
  builtAt: string;
}

const require = createRequire(import.meta.url);

function packageDir(name: string): string {
  return path.dirname(require.resolve(`${name}/package.json`));
}

function packageVersion(dir: string): string {
  return (JSON.parse(fs.readFileSync(path.join(dir, 'package.json'), 'utf8')) as { version: string }).version;
}

/** One row of the ASN CSV: start,end,asn,"organisation, maybe quoted". */
function splitAsnRow(line: string): [string, string, number, string] | null {
  const a = line.indexOf(',');
  const b = line.indexOf(',', a + 1);
  const c = line.indexOf(',', b + 1);
  if (a < 0 || b < 0 || c < 0) return null;
  let org = line.slice(c + 1);
  if (org.startsWith('"')) org = org.slice(1, -1).replace(/""/g, '"');
  return [line.slice(0, a), line.slice(a + 1, b), Number(line.slice(b + 1, c)), org];
}

/** IPv4 ranges as unsigned 32-bit starts and ends, sorted by start. */
class Ipv4Ranges {
  private readonly starts: Uint32Array;
  private readonly ends: Uint32Array;
  private readonly asns: Uint32Array;
  private readonly orgs: Uint32Array;

  constructor(
    csv: string,
    private readonly names: OrgNames,
  ) {
    const lines = csv.split('\n');
    this.starts = new Uint32Array(lines.length);
    this.ends = new Uint32Array(lines.length);
    this.asns = new Uint32Array(lines.length);
    this.orgs = new Uint32Array(lines.length);
    let n = 0;
    for (const line of lines) {
      const row = splitAsnRow(line);
      if (!row) continue;
      this.starts[n] = Number(row[0]);
      this.ends[n] = Number(row[1]);
      this.asns[n] = row[2];
      this.orgs[n] = names.index(row[3]);
      n++;
    }
    this.size = n;
  }

  readonly size: number;

  find(value: number): AsInfo | null {
    let lo = 0;
    let hi = this.size - 1;
    while (lo <= hi) {
      const mid = (lo + hi) >>> 1;
      if (this.starts[mid]! <= value) lo = mid + 1;
      else hi = mid - 1;
    }
    return hi >= 0 && value <= this.ends[hi]! ? { number: this.asns[hi]!, organization_name: this.names.get(this.orgs[hi]!) } : null;
  }
}

/** IPv6 ranges as 128-bit bigints split into two 64-bit halves, sorted by start. */
class Ipv6Ranges {
  private readonly startHi: BigUint64Array;
  private readonly startLo: BigUint64Array;
  private readonly endHi: BigUint64Array;
  private readonly endLo: BigUint64Array;
  private readonly asns: Uint32Array;
  private readonly orgs: Uint32Array;
  readonly size: number;

  constructor(
    csv: string,
    private readonly names: OrgNames,
  ) {
    const lines = csv.split('\n');
    this.startHi = new BigUint64Array(lines.length);
    this.startLo = new BigUint64Array(lines.length);
    this.endHi = new BigUint64Array(lines.length);
    this.endLo = new BigUint64Array(lines.length);
    this.asns = new Uint32Array(lines.length);
    this.orgs = new Uint32Array(lines.length);
    let n = 0;
    for (const line of lines) {
      const row = splitAsnRow(line);
      if (!row) continue;
      const start = BigInt(row[0]);
      const end = BigInt(row[1]);
      this.startHi[n] = start >> 64n;
      this.startLo[n] = BigInt.asUintN(64, start);
      this.endHi[n] = end >> 64n;
      this.endLo[n] = BigInt.asUintN(64, end);
      this.asns[n] = row[2];
      this.orgs[n] = names.index(row[3]);
      n++;
    }
    this.size = n;
  }

  find(hi: bigint, lo: bigint): AsInfo | null {
    let a = 0;
    let b = this.size - 1;
    while (a <= b) {
      const mid = (a + b) >>> 1;
      const sh = this.startHi[mid]!;
      if (sh < hi || (sh === hi && this.startLo[mid]! <= lo)) a = mid + 1;
      else b = mid - 1;
    }
    if (b < 0) return null;
    const eh = this.endHi[b]!;
    return hi < eh || (hi === eh && lo <= this.endLo[b]!) ? { number: this.asns[b]!, organization_name: this.names.get(this.orgs[b]!) } : null;
  }
}

/** Organisation names stored once each: 500k ranges name about 80k organisations. */
class OrgNames {
  private readonly byName = new Map<string, number>();
  private readonly names: string[] = [];

  index(name: string): number {
    let i = this.byName.get(name);
    if (i === undefined) {
      // A copy: `name` is a slice of the whole CSV text, and V8 keeps the text (31 MiB for both files) alive for as
      // long as a slice of it lives.
      const own = Buffer.from(name).toString();
      i = this.names.length;
      this.names.push(own);
      this.byName.set(own, i);
    }
    return i;
  }

  get(i: number): string {
    return this.names[i]!;
  }
}

/** Recently seen addresses: attackers repeat, and parsing an address costs more than the lookups. */
const CACHE_SIZE = 20_000;

export class GeoIp {
  private readonly cache = new Map<string, GeoInfo | null>();

  private constructor(
    private readonly countries: Reader<CountryResponse & { country_code?: string }>,
    private readonly v4: Ipv4Ranges,
    private readonly v6: Ipv6Ranges,
    readonly version: GeoIpVersion,
  ) {}

  /** Reads both databases from their packages (about a second, done once per process). */
  static load(): GeoIp {
    const countryDir = packageDir('@ip-location-db/geo-whois-asn-country-mmdb');
    const asnDir = packageDir('@ip-location-db/asn');
    const countries = new Reader<CountryResponse & { country_code?: string }>(fs.readFileSync(path.join(countryDir, 'geo-whois-asn-country.mmdb')));
    const names = new OrgNames();
    const v4 = new Ipv4Ranges(fs.readFileSync(path.join(asnDir, 'asn-ipv4-num.csv'), 'utf8'), names);
    const v6 = new Ipv6Ranges(fs.readFileSync(path.join(asnDir, 'asn-ipv6-num.csv'), 'utf8'), names);
    return new GeoIp(countries, v4, v6, {
      country: `@ip-location-db/geo-whois-asn-country-mmdb@${packageVersion(countryDir)}`,
      asn: `@ip-location-db/asn@${packageVersion(asnDir)} (${v4.size} IPv4 and ${v6.size} IPv6 ranges)`,
      builtAt: countries.metadata.buildEpoch.toISOString(),
    });
  }

  /** Country and AS of a public address (canonical text); null for private and reserved ones and for non-addresses. */
  lookup(ip: string): GeoInfo | null {
    const cached = this.cache.get(ip);
    if (cached !== undefined) return cached;
    const info = this.resolve(ip);
    if (this.cache.size >= CACHE_SIZE) this.cache.clear();
    this.cache.set(ip, info);
    return info;
  }

  private resolve(ip: string): GeoInfo | null {
    if (!ipaddr.isValid(ip)) return null;
    const address = ipaddr.parse(ip);
    if (address.range() !== 'unicast') return null;
    const country = this.countries.get(ip)?.country_code ?? null;
    let as: AsInfo | null;
    if (address.kind() === 'ipv4') {
      as = this.v4.find(address.toByteArray().reduce((n, byte) => n * 256 + byte, 0));
    } else {
      const bytes = address.toByteArray();
      let hi = 0n;
      let lo = 0n;
      for (let i = 0; i < 8; i++) hi = (hi << 8n) | BigInt(bytes[i]!);
      for (let i = 8; i < 16; i++) lo = (lo << 8n) | BigInt(bytes[i]!);
      as = this.v6.find(hi, lo);
    }
    return country || as ? { country_iso_code: country, as } : null;
  }
}

let shared: GeoIp | null = null;

/** The process's databases, read on first use. */
export function geoIp(): GeoIp {
  shared ??= GeoIp.load();
  return shared;
}

/** Loads the databases now (not on the first event) and says which ones, once per process. */
export function loadGeoIp(logger: { info(obj: object, msg: string): void }): GeoIp {
  if (shared) return shared;
  const started = performance.now();
  const geo = geoIp();
  logger.info({ ...geo.version, loadMs: Math.round(performance.now() - started) }, 'GeoIP and ASN databases loaded');
  return geo;
}
