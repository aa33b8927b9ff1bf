// The event fields indicators are looked for in, by what they hold.
// Addresses, domains and email addresses are the graph entities the enricher
// finds (its fields, its canonical values): matching at ingest reads them from
// the event's entities, the retro-hunt from the same fields of stored events.
// URLs and file hashes are read from the fields below.
import { ENTITY_FIELDS } from '../pipeline/enricher/extract.js';

const entityFields = (type: string) => ENTITY_FIELDS.filter(([, t]) => t === type).map(([field]) => field);

export const INTEL_FIELDS = {
  address: entityFields('IP'),
  domain: entityFields('domain'),
  email: entityFields('email'),
  url: ['url.full', 'url.original'],
  hash: ['file.hash.md5', 'file.hash.sha1', 'file.hash.sha256', 'process.hash.md5', 'process.hash.sha1', 'process.hash.sha256'],
} as const;

export type FieldClass = keyof typeof INTEL_FIELDS;

/** Entity types of the enricher to the indicator classes they are looked up in. */
export const ENTITY_CLASSES: Partial<Record<string, 'address' | 'domain' | 'email'>> = { IP: 'address', domain: 'domain', email: 'email' };
