// Feed kinds and their settings: what each needs, checked when a
// subscription is written (the API answers 400 naming the field) and again
// when a sync reads it; which settings are secrets (sealed at rest under
// CAIRN_MASTER_KEY, "[redacted]" in answers); and the request headers a
// feed's authentication makes.
import { z } from 'zod';
import type { OutboundPolicy } from '../lib/outbound/client.js';
import { literalAddressRefusal } from '../lib/outbound/tcp.js';
import { mapSecrets, REDACTED, type SecretBox } from '../lib/secret-box.js';

export const FEED_KINDS = ['taxii', 'misp', 'stix-bundle', 'plain', 'csv'] as const;
export type FeedKind = (typeof FEED_KINDS)[number];

export const AUTH_TYPES = ['none', 'basic', 'bearer'] as const;

const SECRETS = ['password', 'token'] as const;

const Auth = {
  auth_type: z.enum(AUTH_TYPES, { message: `auth_type must be one of: ${AUTH_TYPES.join(', ')}` }).default('none').describe('how cairn authenticates to the feed'),
  username: z.string().max(512, 'username must be at most 512 characters').default('').describe('basic authentication user name'),
  password: z.string().max(8192, 'password must be at most 8192 characters').default('').describe('basic authentication password; a secret: "[redacted]" in answers when set'),
  token: z.string().max(8192, 'token must be at most 8192 characters').default('').describe('bearer token (a TAXII server\'s API key, e.g. a cairn_ key); a secret: "[redacted]" in answers when set'),
};

function withAuthRules<T extends z.ZodType<{ auth_type: string; username: string; password: string; token: string }>>(schema: T) {
  return schema
    .refine((s) => s.auth_type !== 'basic' || (s.username !== '' && s.password !== ''), { message: 'username and password are required with auth_type basic', path: ['username'] })
    .refine((s) => s.auth_type !== 'bearer' || s.token !== '', { message: 'token is required with auth_type bearer', path: ['token'] });
}

export const TaxiiSettings = withAuthRules(
  z.strictObject({
    collection_id: z.string({ message: 'collection_id is required' }).trim().min(1, 'collection_id is required').max(200, 'collection_id must be at most 200 characters').describe('the collection to poll (its id in the TAXII server)'),
    page_size: z.int('page_size must be an integer').min(1, 'page_size must be at least 1').max(10_000, 'page_size must be at most 10000').default(1000).describe('objects asked for per request (limit)'),
    ...Auth,
  }),
);

export const PlainSettings = withAuthRules(z.strictObject({ ...Auth }));

export const CsvSettings = withAuthRules(
  z.strictObject({
    column: z
      .union([z.int('column must be a 1-based column number or a header name').min(1, 'column must be at least 1'), z.string().trim().min(1, 'column must not be empty').max(200, 'column must be at most 200 characters')])
      .default(1)
      .describe('the column holding the indicator: a 1-based number, or a header name (then header is true)'),
    header: z.boolean({ message: 'header must be true or false' }).default(false).describe('the first row names the columns'),
    delimiter: z.string().min(1, 'delimiter must be one character').max(1, 'delimiter must be one character').default(',').describe('the column separator'),
    ...Auth,
  }),
).refine((s) => typeof s.column === 'number' || s.header, { message: 'a column given by name needs header: true', path: ['column'] });

export const SETTINGS_SCHEMAS = { taxii: TaxiiSettings, misp: PlainSettings, 'stix-bundle': PlainSettings, plain: PlainSettings, csv: CsvSettings } as const satisfies Record<FeedKind, z.ZodType>;

export type FeedSettings = { kind: 'taxii'; settings: z.output<typeof TaxiiSettings> } | { kind: 'csv'; settings: z.output<typeof CsvSettings> } | { kind: 'misp' | 'stix-bundle' | 'plain'; settings: z.output<typeof PlainSettings> };

export type AuthSettings = z.output<typeof PlainSettings>;

/** Stored settings (secrets open) read for their kind. */
export function feedSettings(kind: FeedKind, settings: Record<string, unknown>): FeedSettings {
  switch (kind) {
    case 'taxii':
      return { kind, settings: TaxiiSettings.parse(settings) };
    case 'csv':
      return { kind, settings: CsvSettings.parse(settings) };
    default:
      return { kind, settings: PlainSettings.parse(settings) };
  }
}

export const sealFeedSettings = (box: SecretBox, settings: Record<string, unknown>) => mapSecrets(settings, SECRETS, (v) => box.seal(v));
export const openFeedSettings = (box: SecretBox, settings: Record<string, unknown>) => mapSecrets(settings, SECRETS, (v) => box.open(v));
export const redactFeedSettings = (settings: Record<string, unknown>) => mapSecrets(settings, SECRETS, () => REDACTED);

/** The Authorization header the settings make, if any. */
export function authHeaders(auth: AuthSettings): Record<string, string> {
  if (auth.auth_type === 'basic') return { authorization: `Basic ${Buffer.from(`${auth.username}:${auth.password}`).toString('base64')}` };
  if (auth.auth_type === 'bearer') return { authorization: `Bearer ${auth.token}` };
  return {};
}

/** Why a feed URL is refused, or null: http(s), no credentials in it, and not a literal address the outbound policy refuses. */
export function feedUrlProblem(text: string, policy: OutboundPolicy): string | null {
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    return 'url must be an absolute http:// or https:// URL';
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') return 'url must be an http:// or https:// URL';
  if (url.username || url.password) return 'url must not hold credentials; give them as username and password with auth_type basic';
  return literalAddressRefusal(policy, url.hostname);
}

/** A URL as logs and job errors name it: no query string (it may hold a key). */
export function describeUrl(text: string): string {
  try {
    const url = new URL(text);
    return `${url.origin}${url.pathname}`;
  } catch {
    return '(invalid url)';
  }
}
