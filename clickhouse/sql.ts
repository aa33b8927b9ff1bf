// Building WHERE clauses from parts without ever putting a value into SQL
// text: every value becomes a typed {pN:Type} parameter that ClickHouse binds.

export class SqlParams {
  readonly values: Record<string, unknown> = {};
  private next = 0;

  /** Registers a value and returns its placeholder, e.g. {p3:String}. */
  add(value: unknown, type: string): string {
    const name = `p${this.next++}`;
    this.values[name] = value;
    return `{${name}:${type}}`;
  }
}

export function whereClause(conditions: string[]): string {
  return conditions.length ? `WHERE ${conditions.map((c) => `(${c})`).join(' AND ')}` : '';
}
