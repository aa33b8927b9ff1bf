// GeoIP and ASN fields on events: source.geo.country_iso_code,
// source.as.number and source.as.organization.name, and the destination twins,
// for public addresses only.
import type { EventFields } from '../parser/types.js';
import type { GeoIp } from './geoip.js';

const SIDES = ['source', 'destination'] as const;

export function addGeoFields(fields: EventFields, geo: GeoIp): void {
  for (const side of SIDES) {
    const ip = fields[`${side}.ip`];
    if (typeof ip !== 'string') continue;
    const info = geo.lookup(ip);
    if (!info) continue;
    if (info.country_iso_code) fields[`${side}.geo.country_iso_code`] = info.country_iso_code;
    if (info.as) {
      fields[`${side}.as.number`] = info.as.number;
      fields[`${side}.as.organization.name`] = info.as.organization_name;
    }
  }
}
