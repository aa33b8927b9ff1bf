// The notification rules of each organization, read once and kept until a
// change is announced (pipeline/state/change-notices.ts). The notifier sees
// every system event, a parser failure for each line no parser reads among
// them, and reading the rules for each one was a store query per event:
// 2,971 of them in one 30 s ingest benchmark, the most store time of any
// statement.
import type { Store } from '../../clickhouse/client.js';
import { getRules, type NotificationRule } from '../../clickhouse/tables/notifications.js';
import { currentNotice, type HotState } from '../state/index.js';

/** Reloaded at least this often anyway, in case a change went unannounced (hot state lost with Redis, say). */
const MAX_AGE_MS = 60_000;

interface Loaded {
  notice: string | null;
  at: number;
  rules: NotificationRule[];
}

export class NotificationRuleCache {
  private readonly byOrg = new Map<string, Loaded>();

  constructor(
    private readonly store: Store,
    private readonly state: HotState,
  ) {}

  /** The enabled rules of `orgId` subscribed to events of `type`, as of the latest announced change. */
  async enabledFor(orgId: string, type: string): Promise<NotificationRule[]> {
    // Read before the rules: a change landing during the load moves it again, and the next event reloads.
    const notice = await currentNotice(this.state, 'notification-rules');
    let loaded = this.byOrg.get(orgId);
    if (!loaded || loaded.notice !== notice || Date.now() - loaded.at > MAX_AGE_MS) {
      loaded = { notice, at: Date.now(), rules: (await getRules(this.store, orgId)).filter((r) => r.enabled) };
      this.byOrg.set(orgId, loaded);
    }
    return loaded.rules.filter((r) => r.event_types.includes(type));
  }
}
