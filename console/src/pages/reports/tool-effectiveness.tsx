// Tool effectiveness: per source (sensor) how much arrived and parsed, and
// per source and per lead rule the leads raised and what became of them.
import type { ComponentChildren } from 'preact';
import { duration, share, shown } from './format.ts';
import { ReportTable, RuleName, type Column } from './report-table.tsx';
import type { Effectiveness, ToolEffectiveness } from './types.ts';

/** The outcome figures sources and rules share, after their own first columns. */
function outcomeColumns<T extends Effectiveness>(): Column<T>[] {
  return [
    { label: 'Leads', cell: (e) => shown(e.leads), number: true },
    { label: 'Observations', cell: (e) => shown(e.observations), number: true },
    { label: 'Incidents', cell: (e) => shown(e.incidents), number: true },
    { label: 'True positives', cell: (e) => shown(e.true_positives), number: true },
    { label: 'False positives', cell: (e) => shown(e.false_positives), number: true },
    { label: 'Precision', cell: (e) => shown(e.precision, share), number: true },
    { label: 'Mean time to detect', cell: (e) => shown(e.mean_time_to_detect_seconds, duration), number: true },
  ];
}

type Source = ToolEffectiveness['sources'][number];
type Rule = ToolEffectiveness['rules'][number];

const SOURCE_COLUMNS: Column<Source>[] = [
  { label: 'Source', cell: (s) => s.source },
  { label: 'Artifacts', cell: (s) => shown(s.artifacts), number: true },
  { label: 'Parsed', cell: (s) => shown(s.parsed), number: true },
  { label: 'Parse rate', cell: (s) => shown(s.parse_rate, share), number: true },
  ...outcomeColumns<Source>(),
];

const RULE_COLUMNS: Column<Rule>[] = [{ label: 'Lead rule', cell: (r) => <RuleName rule={r} /> }, ...outcomeColumns<Rule>()];

export function ToolEffectivenessView({ report }: { report: ToolEffectiveness }) {
  return (
    <>
      <ReportTable caption="Sources: what arrived, what parsed, and the leads raised from it" columns={SOURCE_COLUMNS} rows={report.sources} rowKey={(s) => s.source} />
      <ReportTable caption="Lead rules: the leads each raised and their outcome" columns={RULE_COLUMNS} rows={report.rules} rowKey={(r) => r.rule_id} empty="no lead was raised in this period." />
      <div class="report-columns">
        <NameList title="Enabled rules that never fired" none="None: every enabled rule raised a lead." items={report.rules_never_fired.map((r) => ({ key: r.rule_id, name: <RuleName rule={r} /> }))} />
        <NameList title="Sources without leads" none="None: every source that sent artifacts led to a lead." items={report.sources_without_leads.map((s) => ({ key: s, name: s }))} />
      </div>
    </>
  );
}

/** A titled list of names, or what its emptiness means. */
function NameList({ title, none, items }: { title: string; none: string; items: Array<{ key: string; name: ComponentChildren }> }) {
  return (
    <section aria-label={title}>
      <h2>{title}</h2>
      {items.length === 0 ? (
        <p class="empty">{none}</p>
      ) : (
        <ul>
          {items.map((item) => (
            <li key={item.key}>{item.name}</li>
          ))}
        </ul>
      )}
    </section>
  );
}
