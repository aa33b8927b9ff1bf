// What each destination type needs, checked when an exporter is written (the
// API answers 400 naming the field) and again when the stage reads it; which
// fields are secrets, sealed at rest under CAIRN_MASTER_KEY and redacted in
// answers; and how a destination is named in logs and system events.
import { X509Certificate } from 'node:crypto';
import net from 'node:net';
import { z } from 'zod';
import type { ExporterType } from '../../clickhouse/tables/exporters.js';
import { isPlainHttpUrl, type OutboundPolicy } from '../../lib/outbound/client.js';
import { literalAddressRefusal } from '../../lib/outbound/tcp.js';
import { keepSecrets, mapSecrets, REDACTED, type SecretBox } from '../../lib/secret-box.js';

const HOST_NAME = /^(?=.{1,253}$)[A-Za-z0-9_]([A-Za-z0-9_-]{0,61}[A-Za-z0-9_])?(\.[A-Za-z0-9_]([A-Za-z0-9_-]{0,61}[A-Za-z0-9_])?)*\.?$/;

function isHost(host: string): boolean {
  return net.isIP(host.replace(/^\[(.*)\]$/, '$1')) !== 0 || HOST_NAME.test(host);
}

const Host = z.string().trim().refine(isHost, 'host must be a host name or an IP address');

const PORT_MESSAGE = 'port must be an integer from 1 to 65535';
const Port = z.int(PORT_MESSAGE).min(1, PORT_MESSAGE).max(65_535, PORT_MESSAGE);

/** PEM certificates, each of which must parse. */
function isPemCertificates(pem: string): boolean {
  const blocks = pem.match(/-----BEGIN CERTIFICATE-----[\s\S]+?-----END CERTIFICATE-----/g);
  if (!blocks) return false;
  try {
    for (const block of blocks) new X509Certificate(block);
    return true;
  } catch {
    return false;
  }
}

const Ca = z
  .string()
  .max(65_536, 'ca must be at most 64 KiB')
  .refine((pem) => pem === '' || isPemCertificates(pem), 'ca must be PEM certificates (-----BEGIN CERTIFICATE-----)')
  .describe('PEM certificates to trust besides the system CAs (a private CA); empty: the system CAs only');

const Tls = (what: string) => z.boolean({ message: 'tls must be true or false' }).describe(what);

const HttpUrl = z
  .string()
  .max(2048, 'url must be at most 2048 characters')
  .refine(isPlainHttpUrl, 'url must be an http:// or https:// URL without credentials (give a bearer token as token)');

const Broker = z
  .string()
  .regex(/^(\[[0-9A-Fa-f:.]+\]|[^\s:[\]]+):\d{1,5}$/, 'each broker must be host:port')
  .refine((b) => isHost(brokerHost(b)) && Number(brokerPort(b)) >= 1 && Number(brokerPort(b)) <= 65_535, 'each broker must be host:port with a port from 1 to 65535');

function brokerHost(broker: string): string {
  return broker.slice(0, broker.lastIndexOf(':'));
}

function brokerPort(broker: string): string {
  return broker.slice(broker.lastIndexOf(':') + 1);
}

export const SASL_MECHANISMS = ['none', 'plain', 'scram-sha-256', 'scram-sha-512'] as const;

export const SyslogSettings = z.strictObject({
  host: Host.describe('the receiver: a host name or an IP address'),
  port: Port.describe('its TCP port'),
  tls: Tls('TLS (1.2 or later, certificate verified) instead of plain TCP').default(false),
  ca: Ca.default(''),
});

export const HttpSettings = z.strictObject({
  url: HttpUrl.describe('where each batch is POSTed as JSON lines (http or https)'),
  token: z.string().max(8192, 'token must be at most 8192 characters').describe('bearer token sent as Authorization: Bearer; a secret: "[redacted]" in answers when set, "" when not').default(''),
});

export const KafkaSettings = z
  .strictObject({
    brokers: z.array(Broker).min(1, 'brokers must list at least one host:port').max(20, 'brokers must list at most 20').describe('bootstrap brokers, host:port each'),
    topic: z.string().regex(/^[A-Za-z0-9._-]{1,249}$/, 'topic must be 1 to 249 letters, digits, ".", "_" or "-"').describe('the topic each artifact is produced to; it must exist'),
    tls: Tls('connect with TLS (1.2 or later, certificates verified)').default(false),
    ca: Ca.default(''),
    sasl_mechanism: z.enum(SASL_MECHANISMS, { message: `sasl_mechanism must be one of: ${SASL_MECHANISMS.join(', ')}` }).describe('SASL authentication; none: no authentication').default('none'),
    username: z.string().max(512, 'username must be at most 512 characters').describe('SASL user name').default(''),
    password: z.string().max(8192, 'password must be at most 8192 characters').describe('SASL password; a secret: "[redacted]" in answers when set, "" when not').default(''),
  })
  .refine((s) => s.sasl_mechanism === 'none' || s.username !== '', { message: 'username is required with a sasl_mechanism', path: ['username'] })
  .refine((s) => s.sasl_mechanism === 'none' || s.password !== '', { message: 'password is required with a sasl_mechanism', path: ['password'] });

export type SyslogSettings = z.output<typeof SyslogSettings>;
export type HttpSettings = z.output<typeof HttpSettings>;
export type KafkaSettings = z.output<typeof KafkaSettings>;

/** A destination with its settings in plain text, as the stage uses them. */
export type Destination = { type: 'syslog'; settings: SyslogSettings } | { type: 'http'; settings: HttpSettings } | { type: 'kafka'; settings: KafkaSettings };

export const SETTINGS_SCHEMAS = { syslog: SyslogSettings, http: HttpSettings, kafka: KafkaSettings } as const satisfies Record<ExporterType, z.ZodType>;

const SECRETS: Record<ExporterType, readonly string[]> = { syslog: [], http: ['token'], kafka: ['password'] };

/** Whether any secret of the settings is set. */
export function hasSecrets(type: ExporterType, settings: Record<string, unknown>): boolean {
  return SECRETS[type].some((field) => typeof settings[field] === 'string' && settings[field] !== '');
}

export const sealSettings = (box: SecretBox, type: ExporterType, settings: Record<string, unknown>) => mapSecrets(settings, SECRETS[type], (v) => box.seal(v));
export const openSettings = (box: SecretBox, type: ExporterType, settings: Record<string, unknown>) => mapSecrets(settings, SECRETS[type], (v) => box.open(v));
/** What an answer shows: every set secret as "[redacted]". */
export const redactSettings = (type: ExporterType, settings: Record<string, unknown>) => mapSecrets(settings, SECRETS[type], () => REDACTED);

/** A change on top of the current settings: a secret omitted or sent as "[redacted]" keeps the current value. */
export function mergeSettings(type: ExporterType, current: Record<string, unknown>, change: Record<string, unknown>): Record<string, unknown> {
  return keepSecrets(current, change, SECRETS[type]);
}

/** The stored settings (secrets open) checked against their type. */
export function destinationOf(type: ExporterType, settings: Record<string, unknown>): Destination {
  switch (type) {
    case 'syslog':
      return { type, settings: SyslogSettings.parse(settings) };
    case 'http':
      return { type, settings: HttpSettings.parse(settings) };
    case 'kafka':
      return { type, settings: KafkaSettings.parse(settings) };
  }
}

/** The destination as logs and system events name it: no secrets, and no URL query string (it may hold a key). */
export function describeDestination(destination: Destination): string {
  switch (destination.type) {
    case 'syslog':
      return `syslog${destination.settings.tls ? '+tls' : ''}://${destination.settings.host}:${destination.settings.port}`;
    case 'http': {
      const url = new URL(destination.settings.url);
      return `${url.origin}${url.pathname}`;
    }
    case 'kafka':
      return `kafka://${destination.settings.brokers.join(',')}/${destination.settings.topic}`;
  }
}

/**
 * Hosts given as IP addresses that the outbound policy refuses, as
 * [field, reason]: refused early with a 400. Names are checked when they
 * resolve, at every connection.
 */
export function refusedAddresses(destination: Destination, policy: OutboundPolicy): [string, string][] {
  const hosts: [string, string][] =
    destination.type === 'syslog'
      ? [['host', destination.settings.host]]
      : destination.type === 'http'
        ? [['url', new URL(destination.settings.url).hostname]]
        : destination.settings.brokers.map((b, i) => [`brokers.${i}`, brokerHost(b)]);
  return hosts.flatMap(([field, host]) => {
    const refusal = literalAddressRefusal(policy, host);
    return refusal ? [[field, refusal] as [string, string]] : [];
  });
}

/** host and port of a broker entry (host:port, IPv6 in brackets). */
export function splitBroker(broker: string): { host: string; port: number } {
  return { host: brokerHost(broker), port: Number(brokerPort(broker)) };
}
