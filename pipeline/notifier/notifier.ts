// What the notifier stage does with one system event: find the enabled
// rules for its type, apply each rule's cooldown, deliver to the rule's
// channels with bounded retries, and record every attempt in the history.
//
// At least once, without double sends: a history row's id is derived from
// (event, rule, channel), so an event the bus delivers again finds its rows
// and is not sent again; a mark in hot state before each send catches the
// one gap left (a crash between the send and its row), which is then
// recorded as failed rather than sent twice. Cooldown and the count of
// suppressed events live in hot state, so they hold across restarts and
// across several notifier workers.
import type { Config } from '../../config/env.js';
import type { Store } from '../../clickhouse/client.js';
import { getChannels, getDelivery, recordDelivery, type HistoryEntry, type NotificationRule, type StoredChannel } from '../../clickhouse/tables/notifications.js';
import { stableId } from '../../lib/ids.js';
import type { Logger } from '../../lib/logger.js';
import { OutboundClient } from '../../lib/outbound/client.js';
import { SecretBox } from '../../lib/secret-box.js';
import type { SystemEvent } from '../../topics/index.js';
import type { HotState } from '../state/types.js';
import { deliver, DeliveryError, openSettings, type Message, type NotifiedEvent } from './channels.js';
import { NotificationRuleCache } from './rule-cache.js';

/** Waits between attempts of one delivery: three attempts within about 10 s, then `failed`. */
export const RETRY_DELAYS_MS = [1000, 3000];
const KEEP_MS = 7 * 86_400_000;

const cooldownKey = (ruleId: string) => `notify:cooldown:${ruleId}`;
const suppressedKey = (ruleId: string) => `notify:suppressed:${ruleId}`;

export interface NotifierParts {
  config: Config;
  store: Store;
  state: HotState;
  logger: Logger;
}

export class Notifier {
  private readonly box: SecretBox;
  readonly outbound: OutboundClient;
  private readonly rules: NotificationRuleCache;

  constructor(private readonly parts: NotifierParts) {
    if (!parts.config.masterKey) throw new Error('notifications need CAIRN_MASTER_KEY to open channel secrets');
    this.box = new SecretBox(parts.config.masterKey);
    this.outbound = new OutboundClient(parts.config.outbound);
    this.rules = new NotificationRuleCache(parts.store, parts.state);
  }

  /** Where a notification points in cairn. */
  link(event: NotifiedEvent): string {
    const base = this.parts.config.identity.publicUrl;
    const incident = event.details.incident_id;
    return typeof incident === 'string' ? `${base}/api/v1/incidents/${incident}` : `${base}/api/v1/health/containers`;
  }

  async handle(event: SystemEvent): Promise<void> {
    const rules = await this.rules.enabledFor(event.org_id, event.type);
    if (rules.length === 0) return;
    const channels = new Map((await getChannels(this.parts.store, event.org_id, [...new Set(rules.flatMap((r) => r.channel_ids))])).map((c) => [c.id, c]));
    for (const rule of rules) await this.apply(rule, rule.channel_ids.map((id) => channels.get(id)).filter((c): c is StoredChannel => c !== undefined), event);
  }

  /** The first event of a rule opens its cooldown and is sent; the next ones inside it are skipped and counted. */
  private async apply(rule: NotificationRule, channels: StoredChannel[], event: SystemEvent): Promise<void> {
    const { state } = this.parts;
    const opened = (await state.setIfAbsent(cooldownKey(rule.id), event.id, rule.cooldown_minutes * 60_000)) || (await state.get(cooldownKey(rule.id))) === event.id;
    if (!opened) {
      // Counted once per event, however often the bus delivers it.
      if (await state.setIfAbsent(`notify:counted:${rule.id}|${event.id}`, '1', KEEP_MS)) await state.increment(suppressedKey(rule.id), 1, KEEP_MS);
      for (const channel of channels) await this.record(rule, channel, event, 'skipped', `inside the cooldown of ${rule.cooldown_minutes} min: not sent`, 0);
      return;
    }
    const suppressed = Number((await state.get(suppressedKey(rule.id))) ?? 0);
    for (const channel of channels) {
      const message: Message = { deliveryId: historyId(event, rule, channel), event, rule: { id: rule.id, name: rule.name }, suppressed, link: this.link(event) };
      await this.send(rule, channel, message);
    }
    // Said once, in this delivery: the count starts again for the next cooldown.
    if (suppressed > 0) await state.increment(suppressedKey(rule.id), -suppressed, KEEP_MS);
  }

  private async send(rule: NotificationRule, channel: StoredChannel, message: Message): Promise<void> {
    const { state, store } = this.parts;
    if (await getDelivery(store, channel.org_id, message.deliveryId)) return; // handled before this redelivery
    if (!channel.enabled) {
      await this.record(rule, channel, message.event, 'skipped', 'channel disabled', 0);
      return;
    }
    if (!(await state.setIfAbsent(`notify:attempt:${message.deliveryId}`, '1', KEEP_MS))) {
      await this.record(rule, channel, message.event, 'failed', 'delivery interrupted by a restart; not sent again, so as not to send it twice', 0);
      return;
    }
    const outcome = await this.attempt(channel, message);
    await this.record(rule, channel, message.event, outcome.ok ? 'sent' : 'failed', outcome.ok ? sentMessage(message) : outcome.error, outcome.attempts);
  }

  /** Delivers with retries on transient errors; never throws. */
  async attempt(channel: StoredChannel, message: Message): Promise<{ ok: true; attempts: number } | { ok: false; error: string; attempts: number }> {
    const settings = openSettings(this.box, channel.type, channel.settings);
    for (let attempt = 1; ; attempt++) {
      try {
        await deliver(channel.type, settings, message, this.outbound);
        return { ok: true, attempts: attempt };
      } catch (err) {
        const error = err instanceof Error ? err.message : String(err);
        const transient = err instanceof DeliveryError ? err.transient : true;
        const delay = RETRY_DELAYS_MS[attempt - 1];
        if (!transient || delay === undefined) {
          this.parts.logger.warn({ channel: channel.id, type: channel.type, attempts: attempt, error }, 'notification not delivered');
          return { ok: false, error: `${error} (after ${attempt} attempt${attempt > 1 ? 's' : ''})`, attempts: attempt };
        }
        await new Promise((r) => setTimeout(r, delay));
      }
    }
  }

  private async record(rule: NotificationRule | null, channel: StoredChannel, event: NotifiedEvent, status: HistoryEntry['status'], message: string, attempts: number): Promise<void> {
    await recordDelivery(this.parts.store, {
      id: rule ? historyId(event, rule, channel) : stableId(event.id, 'test', channel.id),
      org_id: channel.org_id,
      at: new Date().toISOString(),
      event_id: event.id,
      event_type: event.type,
      rule_id: rule?.id ?? '',
      rule_name: rule?.name ?? '',
      channel_id: channel.id,
      channel_name: channel.name,
      channel_type: channel.type,
      status,
      message: message.slice(0, 4000),
      attempts,
    });
  }

  /** The test message of POST .../channels/:id/test: sent now, recorded under no rule. */
  async test(channel: StoredChannel, event: NotifiedEvent): Promise<{ ok: boolean; message: string; attempts: number }> {
    const outcome = await this.attempt(channel, { deliveryId: stableId(event.id, 'test', channel.id), event, rule: null, suppressed: 0, link: this.link(event) });
    const text = outcome.ok ? `test message sent through ${channel.type} channel "${channel.name}"` : outcome.error;
    await this.record(null, channel, event, outcome.ok ? 'sent' : 'failed', text, outcome.attempts);
    return { ok: outcome.ok, message: text, attempts: outcome.attempts };
  }
}

function historyId(event: NotifiedEvent, rule: NotificationRule, channel: StoredChannel): string {
  return stableId(event.id, rule.id, channel.id);
}

/** The history's message for a sent delivery: the event, in a line. */
function sentMessage(message: Message): string {
  const digest = message.suppressed ? ` (+${message.suppressed} suppressed during the cooldown)` : '';
  return `${message.event.summary}${digest} ${JSON.stringify(message.event.details)}`;
}
