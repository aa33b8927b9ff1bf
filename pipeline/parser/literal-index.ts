// Which of many literals a text holds, in one pass over the text: each literal
// is filed under its first three characters, the text's three-character
// windows are looked up once each, and only the literals filed there are
// compared. Looking for several hundred literals one by one cost more than
// all the rest of reading a line.
const KEY = 3;

/** The key of the three characters at `i`, as one number (no string made per window). */
function keyAt(text: string, i: number): number {
  return (text.charCodeAt(i) * 65536 + text.charCodeAt(i + 1)) * 65536 + text.charCodeAt(i + 2);
}

const FILTER_BITS = 16;
/** A hash of the same three characters into FILTER_BITS bits: most windows of a line key no literal, and the filter says so without a map lookup. */
function filterSlot(text: string, i: number): number {
  return (text.charCodeAt(i) * 961 + text.charCodeAt(i + 1) * 31 + text.charCodeAt(i + 2)) & ((1 << FILTER_BITS) - 1);
}

export class LiteralIndex<T> {
  private readonly byKey = new Map<number, { literal: string; items: T[] }[]>();
  private readonly filter = new Uint8Array(1 << FILTER_BITS);
  /** Literals shorter than a key: compared one by one. */
  private readonly short: { literal: string; items: T[] }[] = [];

  add(literal: string, item: T): void {
    if (literal.length >= KEY) this.filter[filterSlot(literal, 0)] = 1;
    const list = literal.length < KEY ? this.short : this.listFor(keyAt(literal, 0));
    const entry = list.find((e) => e.literal === literal);
    if (entry) entry.items.push(item);
    else list.push({ literal, items: [item] });
  }

  private listFor(key: number): { literal: string; items: T[] }[] {
    let list = this.byKey.get(key);
    if (!list) this.byKey.set(key, (list = []));
    return list;
  }

  /** Adds to `found` the items of every literal `text` contains. */
  collect(text: string, found: Set<T>): void {
    for (const { literal, items } of this.short) if (text.includes(literal)) for (const item of items) found.add(item);
    if (this.byKey.size === 0) return;
    for (let i = 0; i + KEY <= text.length; i++) {
      if (this.filter[filterSlot(text, i)] === 0) continue;
      const entries = this.byKey.get(keyAt(text, i));
      if (!entries) continue;
      for (const { literal, items } of entries) {
        if (text.startsWith(literal, i)) for (const item of items) found.add(item);
      }
    }
  }
}
