// ClickHouse's RowBinary format: rows as the engine holds their values, with
// no text to parse. Inserting events as JSONEachRow cost the engine about
// 17 µs a row, as RowBinary about 9 (bench/README.md, eleventh pass): it no
// longer tokenizes JSON, unescapes strings or reads times from text.
//
// The writer covers the types cairn inserts in bulk (encoded-rows.ts); the
// reader reads back any of them by the column types, for the rare repeat that
// must drop rows (tables/replays.ts) and for tests.

/** A table's columns in the order each row holds them, with their ClickHouse types. */
export type RowColumns = readonly (readonly [name: string, type: string])[];

/** The columns as a ClickHouse structure ("id UUID, raw String"), for the file() and input() table functions. */
export function structureOf(columns: RowColumns): string {
  return columns.map(([name, type]) => `${name} ${type}`).join(', ');
}

const HEX_VALUE = new Int8Array(128).fill(-1);
for (let i = 0; i < 10; i++) HEX_VALUE[48 + i] = i;
for (let i = 0; i < 6; i++) {
  HEX_VALUE[65 + i] = 10 + i;
  HEX_VALUE[97 + i] = 10 + i;
}
const HEX_DIGITS = '0123456789abcdef';
const TWO_TO_32 = 4294967296;

/**
 * Rows appended value by value, in the columns' order. The backing memory is
 * never Node's shared pool, so the finished body can be transferred to
 * another thread whole (pipeline/analysis/pool.ts).
 */
export class RowBinaryWriter {
  private buf: Buffer;
  private at = 0;
  private readonly starts: number[] = [];

  constructor(initialBytes = 1 << 16) {
    this.buf = Buffer.allocUnsafeSlow(initialBytes);
  }

  /** Marks where the next row starts (rows can then be dropped one by one, rowStarts). */
  row(): this {
    this.starts.push(this.at);
    return this;
  }

  get rows(): number {
    return this.starts.length;
  }

  /** The bytes written, and where each row starts in them. */
  finish(): { body: Buffer; rowStarts: Uint32Array } {
    return { body: this.buf.subarray(0, this.at), rowStarts: Uint32Array.from(this.starts) };
  }

  private reserve(bytes: number): void {
    if (this.at + bytes <= this.buf.length) return;
    const grown = Buffer.allocUnsafeSlow(Math.max(this.buf.length * 2, this.at + bytes));
    this.buf.copy(grown, 0, 0, this.at);
    this.buf = grown;
  }

  /** Lengths and counts: unsigned LEB128. */
  varUInt(n: number): this {
    this.reserve(10);
    while (n >= 0x80) {
      this.buf[this.at++] = (n % 128) | 0x80;
      n = Math.floor(n / 128);
    }
    this.buf[this.at++] = n;
    return this;
  }

  /** String (and LowCardinality(String)): its UTF-8 length, then its bytes. */
  string(s: string): this {
    const length = s.length;
    // Most values are short and ASCII: copied a character at a time, which beats a call into the encoder.
    if (length < 128) {
      this.reserve(length + 1);
      const buf = this.buf;
      let at = this.at + 1;
      let i = 0;
      for (; i < length; i++) {
        const c = s.charCodeAt(i);
        if (c >= 0x80) break;
        buf[at++] = c;
      }
      if (i === length) {
        buf[this.at] = length;
        this.at = at;
        return this;
      }
    }
    const bytes = Buffer.byteLength(s, 'utf8');
    this.varUInt(bytes);
    this.reserve(bytes);
    this.at += this.buf.write(s, this.at, bytes, 'utf8');
    return this;
  }

  /** UUID: its two 64-bit halves, each little-endian. */
  uuid(id: string): this {
    if (id.length !== 36) throw new Error(`not a UUID: ${id}`);
    this.reserve(16);
    const buf = this.buf;
    let digit = 0;
    let byte = 0;
    for (let i = 0; i < 36; i++) {
      const c = id.charCodeAt(i);
      if (c === 45) continue; // '-'
      const v = c < 128 ? HEX_VALUE[c]! : -1;
      if (v < 0) throw new Error(`not a UUID: ${id}`);
      if (digit & 1) {
        // Byte k of the UUID goes to 7 - k within its half.
        const k = digit >> 1;
        buf[this.at + (k < 8 ? 7 - k : 23 - k)] = (byte << 4) | v;
      } else {
        byte = v;
      }
      digit++;
    }
    if (digit !== 32) throw new Error(`not a UUID: ${id}`);
    this.at += 16;
    return this;
  }

  /** DateTime64(3): milliseconds since the epoch, a signed 64-bit integer. */
  dateTime64(ms: number): this {
    if (!Number.isFinite(ms)) throw new Error(`not a time: ${ms}`);
    this.reserve(8);
    const high = Math.floor(ms / TWO_TO_32);
    this.buf.writeUInt32LE(ms - high * TWO_TO_32, this.at);
    this.buf.writeInt32LE(high, this.at + 4);
    this.at += 8;
    return this;
  }

  /** Nullable(T): a byte, 1 for NULL; a value follows only when it is 0. */
  nullFlag(isNull: boolean): this {
    return this.uint8(isNull ? 1 : 0);
  }

  uint8(n: number): this {
    this.reserve(1);
    this.buf[this.at++] = n;
    return this;
  }

  uint32(n: number): this {
    this.reserve(4);
    this.buf.writeUInt32LE(n, this.at);
    this.at += 4;
    return this;
  }
}

/** Reads values back in the form the JSON formats give them: times as "2026-01-02 03:04:05.678", numbers as numbers. */
export class RowBinaryReader {
  at: number;

  constructor(
    private readonly buf: Uint8Array,
    start = 0,
  ) {
    this.at = start;
  }

  varUInt(): number {
    let n = 0;
    let scale = 1;
    for (;;) {
      const b = this.buf[this.at++];
      if (b === undefined) throw new Error('RowBinary ends inside a value');
      n += (b & 0x7f) * scale;
      if (b < 0x80) return n;
      scale *= 128;
    }
  }

  string(): string {
    const length = this.varUInt();
    if (this.at + length > this.buf.length) throw new Error('RowBinary ends inside a value');
    const s = Buffer.from(this.buf.buffer, this.buf.byteOffset + this.at, length).toString('utf8');
    this.at += length;
    return s;
  }

  uuid(): string {
    let hex = '';
    for (let k = 0; k < 16; k++) {
      const b = this.buf[this.at + (k < 8 ? 7 - k : 23 - k)]!;
      hex += HEX_DIGITS[b >> 4]! + HEX_DIGITS[b & 15]!;
      if (k === 3 || k === 5 || k === 7 || k === 9) hex += '-';
    }
    this.at += 16;
    return hex;
  }

  dateTime64(): string {
    const view = new DataView(this.buf.buffer, this.buf.byteOffset + this.at, 8);
    const ms = view.getInt32(4, true) * TWO_TO_32 + view.getUint32(0, true);
    this.at += 8;
    return new Date(ms).toISOString().replace('T', ' ').replace('Z', '');
  }

  uint(bytes: 1 | 4): number {
    const view = new DataView(this.buf.buffer, this.buf.byteOffset + this.at, bytes);
    this.at += bytes;
    return bytes === 1 ? view.getUint8(0) : view.getUint32(0, true);
  }

  /** A value of `type`, one of the types the writer writes or a Nullable, Array, Map or LowCardinality of them. */
  value(type: string): unknown {
    const inner = /^(\w+)\((.*)\)$/.exec(type);
    const [name, args] = inner ? [inner[1]!, inner[2]!] : [type, ''];
    switch (name) {
      case 'String':
        return this.string();
      case 'UUID':
        return this.uuid();
      case 'DateTime64':
        return this.dateTime64();
      case 'UInt8':
        return this.uint(1);
      case 'UInt32':
        return this.uint(4);
      case 'LowCardinality':
        return this.value(args);
      case 'Nullable':
        return this.uint(1) === 1 ? null : this.value(args);
      case 'Array':
        return Array.from({ length: this.varUInt() }, () => this.value(args));
      case 'Map': {
        const [key, value] = splitTypeArguments(args);
        // Entries, then fromEntries: a key may be "__proto__", which assignment would take as the prototype.
        const entries: [string, unknown][] = [];
        for (let n = this.varUInt(); n > 0; n--) entries.push([String(this.value(key!)), this.value(value!)]);
        return Object.fromEntries(entries);
      }
      default:
        throw new Error(`RowBinaryReader does not read ${type}`);
    }
  }
}

/** "K, V" of Map(K, V), each of which may hold commas of its own. */
function splitTypeArguments(args: string): string[] {
  const parts: string[] = [];
  let depth = 0;
  let start = 0;
  for (let i = 0; i < args.length; i++) {
    const c = args[i];
    if (c === '(') depth++;
    else if (c === ')') depth--;
    else if (c === ',' && depth === 0) {
      parts.push(args.slice(start, i).trim());
      start = i + 1;
    }
  }
  parts.push(args.slice(start).trim());
  return parts;
}

/** Every row of a RowBinary body as an object of its columns. */
export function readRows(body: Uint8Array, columns: RowColumns): Record<string, unknown>[] {
  const reader = new RowBinaryReader(body);
  const rows: Record<string, unknown>[] = [];
  while (reader.at < body.length) {
    const row: Record<string, unknown> = {};
    for (const [name, type] of columns) row[name] = reader.value(type);
    rows.push(row);
  }
  return rows;
}
