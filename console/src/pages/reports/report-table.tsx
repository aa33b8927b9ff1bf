// The pieces every report view is made of: one table (a caption, a header
// row, the first cell of each row its header), a figure beside the previous
// period's, and bars of this period beside the previous.
import type { ComponentChildren } from 'preact';
import { count, shown, type Format } from './format.ts';

export interface Column<T> {
  label: ComponentChildren;
  cell: (row: T) => ComponentChildren;
  /** Right-aligned, tabular figures. */
  number?: boolean;
}

/** A report's table; the first column heads each row. Without rows it says so instead of drawing an empty table. */
export function ReportTable<T>({ caption, columns, rows, rowKey, empty = 'None in this period.' }: { caption: string; columns: Column<T>[]; rows: T[]; rowKey: (row: T) => string; empty?: string }) {
  if (rows.length === 0) {
    return (
      <p class="empty">
        <strong>{caption}</strong>: {empty}
      </p>
    );
  }
  return (
    <table class="report-table">
      <caption>{caption}</caption>
      <thead>
        <tr>
          {columns.map((c, i) => (
            <th key={i} scope="col" class={c.number ? 'number' : undefined}>
              {c.label}
            </th>
          ))}
        </tr>
      </thead>
      <tbody>
        {rows.map((row) => (
          <tr key={rowKey(row)}>
            {columns.map((c, i) =>
              i === 0 ? (
                <th key={i} scope="row">
                  {c.cell(row)}
                </th>
              ) : (
                <td key={i} class={c.number ? 'number' : undefined}>
                  {c.cell(row)}
                </td>
              ),
            )}
          </tr>
        ))}
      </tbody>
    </table>
  );
}

/** How a figure moved, in words a screen reader reads too. */
function change(current: number | null, previous: number | null): string {
  if (current === null || previous === null || current === previous) return '';
  return current > previous ? 'up' : 'down';
}

/** One figure of a report's summary (in a <dl class="figures">), with the previous period's under it where the report compares. */
export function Figure({ label, value, previous, format = count }: { label: string; value: number | null; previous?: number | null; format?: Format }) {
  const moved = previous === undefined ? '' : change(value, previous);
  return (
    <div>
      <dt>{label}</dt>
      <dd>
        {shown(value, format)}
        {previous !== undefined && (
          <span class="previous">
            previous {shown(previous, format)}
            {moved ? `, ${moved}` : ''}
          </span>
        )}
      </dd>
    </div>
  );
}

/** Current beside previous as two bars, for a row whose figures the table already gives (hidden from screen readers). */
export function Bars({ current, previous, max }: { current: number; previous: number; max: number }) {
  const scale = (v: number) => (max > 0 ? (v / max) * 100 : 0);
  return (
    <svg class="chart" viewBox="0 0 100 10" preserveAspectRatio="none" aria-hidden="true">
      <rect class="bar" x="0" y="0.5" height="4" width={scale(current)} />
      <rect class="bar previous-bar" x="0" y="5.5" height="4" width={scale(previous)} />
    </svg>
  );
}

/** A node named by its type and value, linking to its page. */
export function NodeName({ node }: { node: { node_id: string; type: string; value: string } }) {
  return (
    <>
      <span class="node-type">{node.type}</span> <a href={`/nodes/${encodeURIComponent(node.node_id)}`}>{node.value}</a>
    </>
  );
}

/** A lead rule by its name, linking to its page. */
export function RuleName({ rule }: { rule: { rule_id: string; rule_name: string } }) {
  return <a href={`/rules/${encodeURIComponent(rule.rule_id)}`}>{rule.rule_name}</a>;
}
