// One partition of an in-process topic: a folder of segment files named by
// the offset of their first record. Appends go to the last segment and are
// fsync'ed before they count (see lib/journal.ts); readers only see records
// below `durableEnd`, so a consumer never handles a message a crash could lose.
import { EventEmitter } from 'node:events';
import fs from 'node:fs/promises';
import path from 'node:path';
import { AppendFile, FrameReader, scanFile, syncDirectory } from '../../../lib/journal.js';

const SEGMENT_SUFFIX = '.log';

interface Segment {
  base: number;
  path: string;
}

function segmentPath(dir: string, base: number): string {
  return path.join(dir, `${String(base).padStart(20, '0')}${SEGMENT_SUFFIX}`);
}

export class PartitionLog {
  private readonly events = new EventEmitter();
  private nextOffset: number;
  private durable: number;
  private lastAppend: Promise<void> = Promise.resolve();
  private failure: Error | null = null;
  private rolling: Promise<void> | null = null;

  private constructor(
    readonly dir: string,
    private readonly segmentBytes: number,
    private segments: Segment[],
    private active: AppendFile,
    end: number,
  ) {
    this.nextOffset = end;
    this.durable = end;
    this.events.setMaxListeners(0);
  }

  static async open(dir: string, segmentBytes: number): Promise<PartitionLog> {
    await fs.mkdir(dir, { recursive: true });
    const segments = (await fs.readdir(dir))
      .filter((f) => f.endsWith(SEGMENT_SUFFIX))
      .map((f) => ({ base: Number(f.slice(0, -SEGMENT_SUFFIX.length)), path: path.join(dir, f) }))
      .sort((a, b) => a.base - b.base);
    if (segments.length === 0) segments.push({ base: 0, path: segmentPath(dir, 0) });
    const last = segments[segments.length - 1]!;
    // Only the last segment can hold a torn write; cut it back to whole records.
    const { validBytes, records } = await scanFile(last.path, () => {});
    const active = await AppendFile.open(last.path, validBytes);
    return new PartitionLog(dir, segmentBytes, segments, active, last.base + records);
  }

  /** Offset one past the last record that is safely on disk. */
  get durableEnd(): number {
    return this.durable;
  }

  /** Offset of the oldest record still kept. */
  get startOffset(): number {
    return this.segments[0]!.base;
  }

  /** Appends encoded records; resolves with the offset of the first once all are durable. */
  async append(bodies: Buffer[]): Promise<number> {
    if (this.failure) throw this.failure;
    if (this.active.size >= this.segmentBytes) this.rolling ??= this.roll().finally(() => (this.rolling = null));
    if (this.rolling) await this.rolling;
    const first = this.nextOffset;
    this.nextOffset += bodies.length;
    const written = this.active.append(bodies);
    const previous = this.lastAppend;
    // Offsets become visible strictly in order, even if a later append's
    // fsync (e.g. on a fresh segment) finishes first.
    const visible = (async () => {
      await previous;
      try {
        await written;
      } catch (err) {
        this.failure ??= new Error(`partition log ${this.dir} failed: ${(err as Error).message}`);
        throw err;
      }
      this.durable = first + bodies.length;
      this.events.emit('durable');
    })();
    this.lastAppend = visible.catch(() => {});
    await visible;
    return first;
  }

  private async roll(): Promise<void> {
    const base = this.nextOffset;
    const previous = this.active;
    const segment = { base, path: segmentPath(this.dir, base) };
    this.active = await AppendFile.open(segment.path);
    this.segments.push(segment);
    await syncDirectory(this.dir);
    void previous.close();
  }

  /** Resolves when `durableEnd` reaches `offset`, the timeout passes, or the signal aborts. */
  waitFor(offset: number, timeoutMs: number, signal: AbortSignal): Promise<void> {
    if (this.durable >= offset || signal.aborted || timeoutMs <= 0) return Promise.resolve();
    return new Promise((resolve) => {
      const done = () => {
        clearTimeout(timer);
        this.events.off('durable', onDurable);
        signal.removeEventListener('abort', done);
        resolve();
      };
      const onDurable = () => {
        if (this.durable >= offset) done();
      };
      const timer = setTimeout(done, timeoutMs);
      this.events.on('durable', onDurable);
      signal.addEventListener('abort', done);
    });
  }

  async openReader(offset: number): Promise<PartitionReader> {
    const reader = new PartitionReader(this, Math.max(offset, this.startOffset));
    await reader.seek();
    return reader;
  }

  /** The segment holding `offset`: the last one whose base is at or below it. */
  segmentFor(offset: number): Segment {
    let found = this.segments[0]!;
    for (const s of this.segments) if (s.base <= offset) found = s;
    return found;
  }

  /** Deletes whole segments below `offset`; never the active one. Returns how many. */
  async deleteBelow(offset: number): Promise<number> {
    let deleted = 0;
    while (this.segments.length > 1 && this.segments[1]!.base <= offset) {
      const old = this.segments.shift()!;
      await fs.rm(old.path, { force: true });
      deleted++;
    }
    if (deleted > 0) await syncDirectory(this.dir);
    return deleted;
  }

  async close(): Promise<void> {
    await this.lastAppend;
    await this.active.close();
  }
}

export interface ReadRecord {
  offset: number;
  body: Buffer;
}

/** Reads a partition in order from an offset, across segment boundaries. */
export class PartitionReader {
  private frames: FrameReader | null = null;
  private segmentBase = 0;

  constructor(
    private readonly log: PartitionLog,
    private nextOffset: number,
  ) {}

  get offset(): number {
    return this.nextOffset;
  }

  /** Opens the segment holding the current offset and skips to it. */
  async seek(): Promise<void> {
    await this.frames?.close();
    const segment = this.log.segmentFor(this.nextOffset);
    this.segmentBase = segment.base;
    this.frames = await FrameReader.open(segment.path);
    let skip = this.nextOffset - segment.base;
    while (skip > 0) {
      const skipped = await this.frames.next(Math.min(skip, 4096));
      if (skipped.length === 0) throw new Error(`offset ${this.nextOffset} is beyond the end of ${segment.path}`);
      skip -= skipped.length;
    }
  }

  /** Up to `max` durable records from the current offset. */
  async next(max: number): Promise<ReadRecord[]> {
    const limit = Math.min(max, this.log.durableEnd - this.nextOffset);
    const out: ReadRecord[] = [];
    while (out.length < limit) {
      const bodies = await this.frames!.next(limit - out.length);
      for (const body of bodies) out.push({ offset: this.nextOffset++, body });
      if (bodies.length === 0) {
        // End of this segment's file: the rest lives in the next segment.
        const segment = this.log.segmentFor(this.nextOffset);
        if (segment.base === this.segmentBase) break;
        await this.seek();
      }
    }
    return out;
  }

  async close(): Promise<void> {
    await this.frames?.close();
    this.frames = null;
  }
}
