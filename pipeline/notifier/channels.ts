// Notification channels (SPEC 2.12; docs/notifications.md): the settings of
// each type, which of them are secrets (sealed at rest, redacted in answers),
// and how a message goes out — email through nodemailer, Slack and webhooks
// through the guarded outbound client.
import { createHmac } from 'node:crypto';
import nodemailer from 'nodemailer';
import { z } from 'zod';
import type { ChannelType } from '../../clickhouse/tables/notifications.js';
import { OutboundError, type OutboundClient } from '../../lib/outbound/client.js';
import { keepSecrets, mapSecrets, REDACTED, type SecretBox } from '../../lib/secret-box.js';
import type { SystemEvent } from '../../topics/index.js';

const Recipients = z
  .string()
  .trim()
  .min(1, 'recipients must name at least one address')
  .max(10_000)
  .superRefine((list, ctx) => {
    const bad = list
      .split(',')
      .map((r) => r.trim())
      .filter((r) => !z.email().safeParse(r).success);
    if (bad.length) ctx.addIssue({ code: 'custom', message: `recipients: not an email address: ${bad.slice(0, 5).join(', ')}` });
  });

const HostName = z.string().trim().min(1).max(253).regex(/^[A-Za-z0-9.-]+$|^\[[0-9a-fA-F:]+\]$/, 'smtp_host must be a host name or address');
const HttpUrl = (field: string) => z.url({ protocol: /^https?$/, message: `${field} must be an http or https URL` }).max(2000);
const HeaderName = z.string().regex(/^[A-Za-z0-9!#$%&'*+.^_`|~-]{1,100}$/, 'header names are tokens such as X-Team');
const HeaderValue = z.string().max(2000).regex(/^[^\r\n]*$/, 'header values are one line');
/** Headers a custom header must not replace: the transport and the signature own them. */
const RESERVED_HEADERS = new Set(['host', 'content-length', 'content-type', 'authorization', 'x-cairn-signature', 'transfer-encoding', 'connection']);

export const EmailSettings = z.strictObject({
  smtp_host: HostName,
  smtp_port: z.union([z.literal(25), z.literal(465), z.literal(587)], { message: 'smtp_port must be 25, 465 or 587' }),
  username: z.string().max(320).default(''),
  password: z.string().max(1024).default(''),
  from_address: z.email('from_address must be an email address'),
  from_name: z.string().max(200).default('cairn'),
  tls_mode: z.enum(['none', 'starttls', 'tls'], { message: 'tls_mode must be none, starttls or tls' }).describe('none: plain; starttls: upgrade (required); tls: TLS from the first byte (port 465); TLS 1.2 minimum'),
  tls_reject_unauthorized: z.boolean().default(true).describe('verify the server certificate (default true)'),
  ca_certificate: z.string().max(65_536).default('').describe('PEM of a private CA to trust'),
  recipients: Recipients.describe('comma-separated email addresses'),
});

export const SlackSettings = z.strictObject({
  webhook_url: HttpUrl('webhook_url').describe('the incoming-webhook URL (a secret)'),
  channel: z.string().regex(/^[#@]?[\w.-]{1,80}$/, 'channel must look like #alerts').default(''),
  username: z.string().max(80).default('cairn'),
});

export const WebhookSettings = z
  .strictObject({
    url: HttpUrl('url'),
    method: z.enum(['POST', 'PUT', 'PATCH'], { message: 'method must be POST, PUT or PATCH' }).default('POST'),
    auth_type: z.enum(['none', 'bearer'], { message: 'auth_type must be none or bearer' }).default('none'),
    auth_token: z.string().max(4096).default(''),
    headers: z
      .record(HeaderName, HeaderValue)
      .default({})
      .refine((h) => Object.keys(h).length <= 50, 'at most 50 headers')
      .refine((h) => !Object.keys(h).some((name) => RESERVED_HEADERS.has(name.toLowerCase())), `headers may not set ${[...RESERVED_HEADERS].join(', ')}`),
    signing_secret: z.string().max(4096).default('').describe('when set, each delivery carries X-Cairn-Signature: t=<unix seconds>,v1=<hex HMAC-SHA256 of "<t>.<body>">'),
  })
  .refine((w) => w.auth_type === 'none' || w.auth_token.length > 0, { message: 'auth_token is required with auth_type bearer', path: ['auth_token'] });

export const CHANNEL_SETTINGS = { email: EmailSettings, slack: SlackSettings, webhook: WebhookSettings } as const;
export type ChannelSettings = { email: z.infer<typeof EmailSettings>; slack: z.infer<typeof SlackSettings>; webhook: z.infer<typeof WebhookSettings> };

/** Per type, the settings that are secrets. */
export const CHANNEL_SECRETS: Record<ChannelType, readonly string[]> = { email: ['password'], slack: ['webhook_url'], webhook: ['auth_token', 'signing_secret'] };

export const sealSettings = (box: SecretBox, type: ChannelType, settings: Record<string, unknown>) => mapSecrets(settings, CHANNEL_SECRETS[type], (v) => box.seal(v));
export const openSettings = (box: SecretBox, type: ChannelType, settings: Record<string, unknown>) => mapSecrets(settings, CHANNEL_SECRETS[type], (v) => box.open(v));
export const redactSettings = (type: ChannelType, settings: Record<string, unknown>) => mapSecrets(settings, CHANNEL_SECRETS[type], () => REDACTED);

/** A change applied to stored (plain) settings: secrets left out or sent as "[redacted]" keep their value. */
export function mergeSettings(type: ChannelType, current: Record<string, unknown>, change: Record<string, unknown>): Record<string, unknown> {
  return keepSecrets(current, change, CHANNEL_SECRETS[type]);
}

/** A system event, or the test message of a channel (type notification.test). */
export type NotifiedEvent = Omit<SystemEvent, 'type'> & { type: SystemEvent['type'] | 'notification.test' };

/** What a delivery says. */
export interface Message {
  deliveryId: string;
  event: NotifiedEvent;
  rule: { id: string; name: string } | null;
  /** Events of the same rule not sent during the cooldown that ended with this one. */
  suppressed: number;
  /** Where to look in cairn. */
  link: string;
}

export class DeliveryError extends Error {
  constructor(
    message: string,
    /** Worth another attempt: timeouts, connection errors, HTTP 5xx/429, SMTP 4xx. */
    readonly transient: boolean,
  ) {
    super(message);
    this.name = 'DeliveryError';
  }
}

function digestLine(message: Message): string {
  return message.suppressed > 0 ? `${message.suppressed} more event(s) of this rule were suppressed during its cooldown.` : '';
}

/** The versioned JSON a webhook receives (docs/notifications.md). */
export function webhookPayload(message: Message): string {
  return JSON.stringify({
    version: 1,
    delivery_id: message.deliveryId,
    event: message.event,
    rule: message.rule,
    suppressed: message.suppressed,
    link: message.link,
    sent_at: new Date().toISOString(),
  });
}

export function signature(secret: string, timestamp: number, body: string): string {
  return `t=${timestamp},v1=${createHmac('sha256', secret).update(`${timestamp}.${body}`).digest('hex')}`;
}

async function httpDelivery(outbound: OutboundClient, request: { url: string; method: string; headers: Record<string, string>; body: string }): Promise<void> {
  let status: number;
  let text = '';
  try {
    const response = await outbound.request({ ...request, timeoutMs: 10_000, maxBytes: 64 * 1024, maxRedirects: 0 });
    status = response.status;
    text = response.text().slice(0, 200);
  } catch (err) {
    const refused = err instanceof OutboundError && (err.code === 'blocked_address' || err.code === 'invalid_url' || err.code === 'redirect_refused');
    throw new DeliveryError(err instanceof Error ? err.message : String(err), !refused);
  }
  if (status >= 200 && status < 300) return;
  throw new DeliveryError(`HTTP ${status}${text ? `: ${text}` : ''}`, status >= 500 || status === 429 || status === 408);
}

const SEVERITY_COLOR = { info: '#439fe0', warning: '#daa038', error: '#d00000' } as const;

export async function deliver(type: ChannelType, settings: Record<string, unknown>, message: Message, outbound: OutboundClient): Promise<void> {
  const { event } = message;
  const subject = `[cairn] ${event.severity} ${event.type}: ${event.summary}`.slice(0, 250);
  if (type === 'email') {
    const s = EmailSettings.parse(settings);
    const transport = nodemailer.createTransport({
      host: s.smtp_host,
      port: s.smtp_port,
      secure: s.tls_mode === 'tls',
      requireTLS: s.tls_mode === 'starttls',
      ignoreTLS: s.tls_mode === 'none',
      auth: s.username ? { user: s.username, pass: s.password } : undefined,
      tls: { minVersion: 'TLSv1.2', rejectUnauthorized: s.tls_reject_unauthorized, ...(s.ca_certificate ? { ca: s.ca_certificate } : {}) },
      connectionTimeout: 10_000,
      greetingTimeout: 10_000,
      socketTimeout: 15_000,
    });
    const digest = digestLine(message);
    const lines = [
      event.summary,
      '',
      `Event: ${event.type}`,
      `Severity: ${event.severity}`,
      `At: ${event.occurred_at}`,
      ...(message.rule ? [`Rule: ${message.rule.name}`] : []),
      `Link: ${message.link}`,
      ...(digest ? [digest] : []),
      '',
      JSON.stringify(event.details, null, 2),
    ];
    try {
      await transport.sendMail({
        from: { name: s.from_name, address: s.from_address },
        to: s.recipients.split(',').map((r) => r.trim()),
        subject,
        text: lines.join('\n'),
        headers: { 'X-Cairn-Event': event.type, 'X-Cairn-Delivery': message.deliveryId },
      });
    } catch (err) {
      const code = (err as { responseCode?: number }).responseCode;
      throw new DeliveryError(err instanceof Error ? err.message : String(err), code === undefined || (code >= 400 && code < 500));
    } finally {
      transport.close();
    }
    return;
  }
  if (type === 'slack') {
    const s = SlackSettings.parse(settings);
    const body = JSON.stringify({
      ...(s.channel ? { channel: s.channel } : {}),
      username: s.username,
      text: `*${event.type}* (${event.severity}): ${event.summary}`,
      attachments: [
        {
          color: SEVERITY_COLOR[event.severity],
          fields: [
            { title: 'Event', value: event.type, short: true },
            { title: 'Severity', value: event.severity, short: true },
            ...(message.rule ? [{ title: 'Rule', value: message.rule.name, short: true }] : []),
            { title: 'Link', value: message.link, short: false },
            ...(message.suppressed ? [{ title: 'Suppressed', value: digestLine(message), short: false }] : []),
          ],
          ts: Math.floor(Date.parse(event.occurred_at) / 1000),
        },
      ],
    });
    await httpDelivery(outbound, { url: s.webhook_url, method: 'POST', headers: { 'content-type': 'application/json' }, body });
    return;
  }
  const s = WebhookSettings.parse(settings);
  const body = webhookPayload(message);
  const headers: Record<string, string> = { ...s.headers, 'content-type': 'application/json', 'x-cairn-event': event.type, 'x-cairn-delivery': message.deliveryId };
  if (s.auth_type === 'bearer') headers.authorization = `Bearer ${s.auth_token}`;
  if (s.signing_secret) headers['x-cairn-signature'] = signature(s.signing_secret, Math.floor(Date.now() / 1000), body);
  await httpDelivery(outbound, { url: s.url, method: s.method, headers, body });
}
