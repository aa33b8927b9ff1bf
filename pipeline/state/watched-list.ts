// A list of configuration records the API writes and every pipeline process
// applies (lead rules, an organization's own decoders): loaded from the
// store, reloaded before use when the API has announced a change (hot-state
// change notices, change-notices.ts), and periodically as a backstop for
// changes made behind the API's back. Each load that changes the list makes
// a new generation, so that worker threads, which get the list as data
// (pipeline/analysis), rebuild what they derive from it only then.
import type { Logger } from '../../lib/logger.js';

/** A record the list holds: its version is its updated_at. */
export interface Versioned {
  id: string;
  updated_at: string;
}

/** What a thread needs to apply the list: plain data, so it can be sent to a worker. */
export interface ListSnapshot<T> {
  /** Changes whenever the list does. */
  generation: number;
  items: T[];
}

export interface WatchedListOptions<T> {
  /** Names the list in log lines, e.g. "lead rules". */
  what: string;
  load: () => Promise<T[]>;
  /** The list's current change notice (currentNotice of its kind). */
  notice: () => Promise<string | null>;
  logger: Logger;
  /** Read before each wait, so a new period from the appliance config applies without a restart. */
  refreshMs: () => number;
  /** Called with every load, changed or not (cheap when nothing changed). */
  onLoad?: (items: T[]) => void;
}

/**
 * Generations are numbered across every list of the process: two lists of
 * the same records (two consumers of one stage in a process, sharing the
 * analysis module when it runs without worker threads) never give one
 * number to different contents.
 */
let lastGeneration = 0;

/** Which records, at which version: equal for two loads of an unchanged list. */
function versionsOf(items: Versioned[]): string {
  return items.map((r) => `${r.id}@${r.updated_at}`).join(',');
}

export class WatchedList<T extends Versioned> {
  private loaded: ListSnapshot<T> = { generation: 0, items: [] };
  private timer: NodeJS.Timeout | null = null;
  /** The change notice current when the loaded list was read. */
  private loadedNotice: string | null = null;

  constructor(private readonly options: WatchedListOptions<T>) {}

  async start(): Promise<void> {
    await this.refresh();
    this.schedule();
  }

  private schedule(): void {
    this.timer = setTimeout(() => {
      this.refresh()
        .catch((err: unknown) => this.options.logger.warn({ err }, `could not refresh ${this.options.what}; keeping the ones loaded`))
        .finally(() => {
          if (this.timer) this.schedule();
        });
    }, this.options.refreshMs());
    this.timer.unref();
  }

  /** Reloads when a change was announced since the last load; call before using the list. */
  async ensureCurrent(): Promise<void> {
    if ((await this.options.notice()) !== this.loadedNotice) await this.refresh();
  }

  async refresh(): Promise<void> {
    // Read the notice first: a change landing during the load moves it again, and the next check reloads.
    const notice = await this.options.notice();
    const items = await this.options.load();
    this.options.onLoad?.(items);
    // A new generation only when the list changed: workers rebuild on a new one, and the periodic reload mostly finds none.
    if (versionsOf(items) !== versionsOf(this.loaded.items)) this.loaded = { generation: ++lastGeneration, items };
    this.loadedNotice = notice;
  }

  /** The loaded list as data, for another thread. */
  snapshot(): ListSnapshot<T> {
    return this.loaded;
  }

  stop(): void {
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
  }
}
