// Append-only files of checksummed records, the durable primitive under the
// in-process bus and the in-process hot state.
//
// Frame: u32 body length | u32 crc32(body) | body. A torn write at the tail
// (crash mid-append) fails its length or checksum check; `scanFile` stops
// there and `AppendFile.open` truncates the file to the last whole record.
//
// Fsync policy: `append` resolves only after the bytes are written and
// fdatasync'ed. Appends that arrive while a sync is running are written
// together by the next one (group commit), so many small producers share
// one fsync.
import { crc32 } from 'node:zlib';
import fs from 'node:fs/promises';
import { dirname } from 'node:path';
import type { FileHandle } from 'node:fs/promises';

const HEADER_BYTES = 8;
/** Guards against reading garbage as a gigantic length after a torn header. */
const MAX_RECORD_BYTES = 256 * 1024 * 1024;

export function encodeFrame(body: Buffer): Buffer {
  const frame = Buffer.allocUnsafe(HEADER_BYTES + body.length);
  frame.writeUInt32BE(body.length, 0);
  frame.writeUInt32BE(crc32(body), 4);
  body.copy(frame, HEADER_BYTES);
  return frame;
}

export interface DecodedFrame {
  body: Buffer;
  /** Position just past this frame, relative to the decoded buffer. */
  end: number;
}

/** Decodes up to `limit` whole, valid frames from `buf`; stops at the first incomplete or corrupt one. */
export function decodeFrames(buf: Buffer, limit = Infinity): { frames: DecodedFrame[]; corrupt: boolean } {
  const frames: DecodedFrame[] = [];
  let pos = 0;
  while (frames.length < limit && buf.length - pos >= HEADER_BYTES) {
    const length = buf.readUInt32BE(pos);
    if (length > MAX_RECORD_BYTES) return { frames, corrupt: true };
    if (buf.length - pos - HEADER_BYTES < length) break;
    const body = buf.subarray(pos + HEADER_BYTES, pos + HEADER_BYTES + length);
    if (crc32(body) !== buf.readUInt32BE(pos + 4)) return { frames, corrupt: true };
    pos += HEADER_BYTES + length;
    frames.push({ body, end: pos });
  }
  return { frames, corrupt: false };
}

const READ_CHUNK_BYTES = 1024 * 1024;

/**
 * Sequential reader of frames from a file position. Reads only up to what
 * the file holds now; call `next` again later to see records appended since.
 */
export class FrameReader {
  private pending: Buffer = Buffer.alloc(0);
  private filePos: number;

  constructor(
    private readonly fh: FileHandle,
    start = 0,
  ) {
    this.filePos = start;
  }

  static async open(path: string, start = 0): Promise<FrameReader> {
    return new FrameReader(await fs.open(path, 'r'), start);
  }

  /** Position of the first byte not yet returned as a frame. */
  get position(): number {
    return this.filePos - this.pending.length;
  }

  /** Up to `max` whole frames; fewer (or none) when the file holds no more yet. */
  async next(max: number): Promise<Buffer[]> {
    const out: Buffer[] = [];
    while (out.length < max) {
      const { frames, corrupt } = decodeFrames(this.pending, max - out.length);
      for (const frame of frames) out.push(Buffer.from(frame.body));
      if (frames.length > 0) this.pending = this.pending.subarray(frames[frames.length - 1]!.end);
      if (out.length >= max) break;
      if (corrupt) throw new Error(`corrupt record at byte ${this.position}`);
      const chunk = Buffer.allocUnsafe(READ_CHUNK_BYTES);
      const { bytesRead } = await this.fh.read(chunk, 0, chunk.length, this.filePos);
      if (bytesRead === 0) break;
      this.filePos += bytesRead;
      const fresh = chunk.subarray(0, bytesRead);
      this.pending = this.pending.length > 0 ? Buffer.concat([this.pending, fresh]) : fresh;
    }
    return out;
  }

  async close(): Promise<void> {
    await this.fh.close();
  }
}

/** Reads every valid record of a file in order; returns the byte length they cover. */
export async function scanFile(path: string, onRecord: (body: Buffer) => void): Promise<{ validBytes: number; records: number }> {
  let handle: FileHandle;
  try {
    handle = await fs.open(path, 'r');
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return { validBytes: 0, records: 0 };
    throw err;
  }
  const reader = new FrameReader(handle);
  let records = 0;
  try {
    for (;;) {
      let batch: Buffer[];
      try {
        batch = await reader.next(4096);
      } catch {
        break; // corrupt tail: everything before it is valid
      }
      if (batch.length === 0) break;
      for (const body of batch) onRecord(body);
      records += batch.length;
    }
    return { validBytes: reader.position, records };
  } finally {
    await reader.close();
  }
}

interface PendingAppend {
  data: Buffer;
  resolve: () => void;
  reject: (err: Error) => void;
}

/** An append-only file with group-committed, fsync'ed appends. */
export class AppendFile {
  private pending: PendingAppend[] = [];
  /** The running flush loop, if any. */
  private flushing: Promise<void> | null = null;
  private closed = false;
  /** Bytes written plus bytes queued: where the next frame will start. */
  private logicalSize: number;

  private constructor(
    readonly path: string,
    private readonly fh: FileHandle,
    size: number,
  ) {
    this.logicalSize = size;
  }

  /**
   * Opens (creating if needed) and truncates to `validBytes` when given, which
   * drops a torn tail found by `scanFile`.
   */
  static async open(path: string, validBytes?: number): Promise<AppendFile> {
    const fh = await fs.open(path, 'a+');
    let size = (await fh.stat()).size;
    if (validBytes !== undefined && validBytes < size) {
      await fh.truncate(validBytes);
      await fh.datasync();
      size = validBytes;
    }
    return new AppendFile(path, fh, size);
  }

  get size(): number {
    return this.logicalSize;
  }

  append(bodies: Buffer[]): Promise<void> {
    if (this.closed) return Promise.reject(new Error(`journal ${this.path} is closed`));
    const data = bodies.length === 1 ? encodeFrame(bodies[0]!) : Buffer.concat(bodies.map(encodeFrame));
    this.logicalSize += data.length;
    return new Promise<void>((resolve, reject) => {
      this.pending.push({ data, resolve, reject });
      this.startFlush();
    });
  }

  private startFlush(): void {
    this.flushing ??= this.flush().finally(() => {
      this.flushing = null;
      // An append may have queued after the loop's last look and before this ran.
      if (this.pending.length > 0) this.startFlush();
    });
  }

  private async flush(): Promise<void> {
    while (this.pending.length > 0) {
      const batch = this.pending.splice(0);
      try {
        const data = batch.length === 1 ? batch[0]!.data : Buffer.concat(batch.map((p) => p.data));
        let written = 0;
        while (written < data.length) {
          const { bytesWritten } = await this.fh.write(data, written, data.length - written);
          written += bytesWritten;
        }
        await this.fh.datasync();
        for (const p of batch) p.resolve();
      } catch (err) {
        for (const p of batch) p.reject(err as Error);
      }
    }
  }

  /** Waits for queued appends, then closes. */
  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    while (this.flushing) await this.flushing;
    await this.fh.close();
  }
}

/** Replaces a file's content atomically: write a temp file, fsync, rename, fsync the folder. */
export async function rewriteFile(path: string, bodies: Buffer[]): Promise<void> {
  const tmp = `${path}.tmp`;
  const fh = await fs.open(tmp, 'w');
  try {
    await fh.write(Buffer.concat(bodies.map(encodeFrame)));
    await fh.datasync();
  } finally {
    await fh.close();
  }
  await fs.rename(tmp, path);
  await syncDirectory(dirname(path));
}

/** Makes a create, rename or unlink in a folder durable. */
export async function syncDirectory(dir: string): Promise<void> {
  const fh = await fs.open(dir, 'r');
  try {
    await fh.sync();
  } finally {
    await fh.close();
  }
}

/**
 * A journal of changes to some in-memory state, compacted by writing a
 * snapshot of that state in its place: at open, and whenever the records
 * written since the last snapshot outnumber it (and at least 10,000).
 */
export class SnapshotJournal {
  private file: AppendFile;
  private sinceSnapshot = 0;
  private snapshotSize: number;
  private compacting: Promise<void> | null = null;

  private constructor(
    file: AppendFile,
    snapshotSize: number,
    private readonly snapshot: () => Buffer[],
  ) {
    this.file = file;
    this.snapshotSize = snapshotSize;
  }

  /** Replays the journal through `apply`, then compacts it to `snapshot()`. */
  static async open(path: string, apply: (body: Buffer) => void, snapshot: () => Buffer[]): Promise<SnapshotJournal> {
    await scanFile(path, apply);
    const state = snapshot();
    await rewriteFile(path, state);
    return new SnapshotJournal(await AppendFile.open(path), state.length, snapshot);
  }

  /**
   * Appends change records; durable when it resolves. The caller applies the
   * change to its state before calling, so a compaction running meanwhile keeps it.
   */
  async append(bodies: Buffer[]): Promise<void> {
    while (this.compacting) await this.compacting;
    await this.file.append(bodies);
    this.sinceSnapshot += bodies.length;
    if (!this.compacting && this.sinceSnapshot > Math.max(10_000, this.snapshotSize)) {
      this.compacting = this.compact().finally(() => (this.compacting = null));
      await this.compacting;
    }
  }

  private async compact(): Promise<void> {
    const old = this.file;
    await old.close();
    const state = this.snapshot();
    await rewriteFile(old.path, state);
    this.file = await AppendFile.open(old.path);
    this.snapshotSize = state.length;
    this.sinceSnapshot = 0;
  }

  async close(): Promise<void> {
    while (this.compacting) await this.compacting;
    await this.file.close();
  }
}
