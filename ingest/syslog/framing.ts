// Splitting a syslog byte stream (TCP, TLS) into messages, RFC 6587: a
// message is either octet-counted ("MSG-LEN SP SYSLOG-MSG", MSG-LEN a decimal
// without leading zero) or ends at LF. Both are told apart per message, so one
// connection may mix them. Memory stays bounded whatever a sender does: a
// message longer than `maxBytes` keeps its first `maxBytes` and the rest is
// counted and skipped, an octet count or a line that never ends included.

export interface Frame {
  bytes: Buffer;
  /** The message was longer than `maxBytes`: these are its first bytes, the rest was skipped. */
  truncated: boolean;
}

/** More digits than this cannot be an octet count we would take (a billion bytes): the line is LF-framed. */
const MAX_COUNT_DIGITS = 9;
const LF = 0x0a;
const CR = 0x0d;
const SPACE = 0x20;

function isDigit(byte: number): boolean {
  return byte >= 0x30 && byte <= 0x39;
}

export class StreamFramer {
  private buffer: Buffer = Buffer.alloc(0);
  /** Inside an octet-counted message: bytes still to read of it (its kept part is at the buffer's start). */
  private counted: { length: number; kept: number } | null = null;
  /** Bytes still to skip of an oversize octet-counted message. */
  private skipCount = 0;
  /** Skipping to the next LF: an oversize line whose first part was emitted. */
  private skipLine = false;

  constructor(private readonly maxBytes: number) {}

  /** The messages completed by `chunk`, in order. */
  push(chunk: Buffer): Frame[] {
    const frames: Frame[] = [];
    let data = this.buffer.length ? Buffer.concat([this.buffer, chunk]) : chunk;
    for (;;) {
      if (this.skipCount > 0) {
        const skipped = Math.min(this.skipCount, data.length);
        this.skipCount -= skipped;
        data = data.subarray(skipped);
        if (this.skipCount > 0) break;
      }
      if (this.skipLine) {
        const lf = data.indexOf(LF);
        if (lf < 0) {
          data = data.subarray(data.length);
          break;
        }
        this.skipLine = false;
        data = data.subarray(lf + 1);
      }
      if (this.counted) {
        const { length, kept } = this.counted;
        if (data.length < kept) break;
        frames.push({ bytes: Buffer.from(data.subarray(0, kept)), truncated: length > kept });
        this.skipCount = length - kept;
        this.counted = null;
        data = data.subarray(kept);
        continue;
      }
      // A new message. Blank lines between messages are no message.
      let start = 0;
      while (start < data.length && (data[start] === LF || data[start] === CR)) start++;
      data = data.subarray(start);
      if (data.length === 0) break;
      const count = this.octetCount(data);
      if (count === 'undecided') break;
      if (count !== null) {
        this.counted = { length: count.length, kept: Math.min(count.length, this.maxBytes) };
        data = data.subarray(count.headerBytes);
        continue;
      }
      const lf = data.indexOf(LF);
      if (lf < 0) {
        if (data.length < this.maxBytes) break;
        // A line that does not end within the limit: emit its first part now, skip the rest up to its LF.
        frames.push({ bytes: Buffer.from(data.subarray(0, this.maxBytes)), truncated: true });
        this.skipLine = true;
        data = data.subarray(data.length);
        break;
      }
      const end = lf > 0 && data[lf - 1] === CR ? lf - 1 : lf;
      if (end > 0) frames.push({ bytes: Buffer.from(data.subarray(0, Math.min(end, this.maxBytes))), truncated: end > this.maxBytes });
      data = data.subarray(lf + 1);
    }
    // Copied, so a small leftover does not pin a large chunk.
    this.buffer = data.length ? Buffer.from(data) : Buffer.alloc(0);
    return frames;
  }

  /**
   * "123 " at the start: an octet count. Null when the message is LF-framed
   * (no digit first, a leading zero, too many digits, no space after them);
   * 'undecided' when the chunk ended inside the digits.
   */
  private octetCount(data: Buffer): { length: number; headerBytes: number } | null | 'undecided' {
    if (!isDigit(data[0]!) || data[0] === 0x30) return null;
    let i = 1;
    while (i < data.length && i <= MAX_COUNT_DIGITS && isDigit(data[i]!)) i++;
    if (i === data.length) return 'undecided';
    if (i > MAX_COUNT_DIGITS || data[i] !== SPACE) return null;
    return { length: Number(data.toString('latin1', 0, i)), headerBytes: i + 1 };
  }

  /** Bytes held for an unfinished message (a sender that stopped mid-message). */
  pendingBytes(): number {
    return this.buffer.length;
  }
}
