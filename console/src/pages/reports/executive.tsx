// The executive overview: each figure beside the same figure for the period
// before, incidents by severity and status, artifacts by source, the top
// attacking addresses and the most targeted nodes.
import { duration, share, shown } from './format.ts';
import { Bars, Figure, NodeName, ReportTable, type Column } from './report-table.tsx';
import type { Compared, Executive } from './types.ts';

type Named = { name: string } & Compared;

const comparedColumns = (first: string): Column<Named>[] => [
  { label: first, cell: (r) => r.name },
  { label: 'This period', cell: (r) => shown(r.current), number: true },
  { label: 'Previous', cell: (r) => shown(r.previous), number: true },
];

type Touched = { type: string; value: string; node_id: string; incidents: number; previous_incidents: number };

const NODE_COLUMNS: Column<Touched>[] = [
  { label: 'Node', cell: (n) => <NodeName node={n} /> },
  { label: 'Incidents', cell: (n) => shown(n.incidents), number: true },
  { label: 'Previous', cell: (n) => shown(n.previous_incidents), number: true },
];

const named = (figures: Record<string, Compared>): Named[] => Object.entries(figures).map(([name, c]) => ({ name, ...c }));

export function ExecutiveView({ report: r }: { report: Executive }) {
  const maxSource = Math.max(0, ...r.artifacts_by_source.flatMap((s) => [s.current, s.previous]));
  const sourceColumns: Column<Executive['artifacts_by_source'][number]>[] = [
    { label: 'Source', cell: (s) => s.source },
    { label: 'This period', cell: (s) => shown(s.current), number: true },
    { label: 'Previous', cell: (s) => shown(s.previous), number: true },
    {
      label: (
        <>
          <span class="legend-current">This period</span> <span class="legend-previous">previous</span>
        </>
      ),
      cell: (s) => <Bars current={s.current} previous={s.previous} max={maxSource} />,
    },
  ];
  return (
    <>
      <h2 id="incidents-title">Incidents</h2>
      <dl class="figures" aria-labelledby="incidents-title">
        <Figure label="Opened" value={r.incidents.current} previous={r.incidents.previous} />
        <Figure label="True positives" value={r.true_positives.current} previous={r.true_positives.previous} />
        <Figure label="False positives" value={r.false_positives.current} previous={r.false_positives.previous} />
        <Figure label="Precision" value={r.precision.current} previous={r.precision.previous} format={share} />
        <Figure label="Time to detect, mean" value={r.time_to_detect_seconds.mean.current} previous={r.time_to_detect_seconds.mean.previous} format={duration} />
        <Figure label="Time to detect, p90" value={r.time_to_detect_seconds.p90.current} previous={r.time_to_detect_seconds.p90.previous} format={duration} />
        <Figure label="Time to resolve, mean" value={r.time_to_resolve_seconds.mean.current} previous={r.time_to_resolve_seconds.mean.previous} format={duration} />
        <Figure label="Time to resolve, p90" value={r.time_to_resolve_seconds.p90.current} previous={r.time_to_resolve_seconds.p90.previous} format={duration} />
      </dl>
      <div class="report-columns">
        <ReportTable caption="Incidents by severity" columns={comparedColumns('Severity')} rows={named(r.by_severity)} rowKey={(x) => x.name} />
        <ReportTable caption="Incidents by status" columns={comparedColumns('Status')} rows={named(r.by_status)} rowKey={(x) => x.name} />
      </div>
      <ReportTable caption="Artifacts by source, this period beside the previous" columns={sourceColumns} rows={r.artifacts_by_source} rowKey={(s) => s.source} />
      <div class="report-columns">
        <ReportTable caption="Top attacking addresses, by incidents" columns={NODE_COLUMNS} rows={r.top_attacking_addresses.map((a) => ({ ...a, type: 'IP' }))} rowKey={(n) => n.node_id} />
        <ReportTable caption="Most targeted nodes, by incidents" columns={NODE_COLUMNS} rows={r.most_targeted_nodes} rowKey={(n) => n.node_id} />
      </div>
    </>
  );
}
