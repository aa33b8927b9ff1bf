// Compliance per framework: each framework's in-scope nodes and how many of
// them logged in the period (log coverage), the incidents touching them by
// status and severity, the open ones grown old, and the silent nodes.
import { Time } from '../../time.tsx';
import { share, shown } from './format.ts';
import { NodeName, ReportTable, type Column } from './report-table.tsx';
import type { Compliance, FrameworkCompliance } from './types.ts';

const FRAMEWORK: Column<FrameworkCompliance> = { label: 'Framework', cell: (f) => f.framework };

const COVERAGE_COLUMNS: Column<FrameworkCompliance>[] = [
  FRAMEWORK,
  { label: 'Nodes in scope', cell: (f) => shown(f.nodes_in_scope), number: true },
  { label: 'Reporting', cell: (f) => shown(f.nodes_reporting), number: true },
  { label: 'Silent', cell: (f) => shown(f.nodes_silent), number: true },
  { label: 'Log coverage', cell: (f) => shown(f.log_coverage, share), number: true },
  { label: 'Incidents', cell: (f) => shown(f.incidents), number: true },
  { label: 'Open over 7 days', cell: (f) => shown(f.open_older_than_7_days), number: true },
  { label: 'Open over 30 days', cell: (f) => shown(f.open_older_than_30_days), number: true },
];

/** One column per key of a breakdown (statuses, severities), in the order the API gives them. */
function breakdownColumns(frameworks: FrameworkCompliance[], of: (f: FrameworkCompliance) => Record<string, number>): Column<FrameworkCompliance>[] {
  const keys = frameworks[0] ? Object.keys(of(frameworks[0])) : [];
  return [FRAMEWORK, ...keys.map((key) => ({ label: key, cell: (f: FrameworkCompliance) => shown(of(f)[key]), number: true }))];
}

type SilentNode = FrameworkCompliance['silent_nodes'][number];

const SILENT_COLUMNS: Column<SilentNode>[] = [
  { label: 'Node', cell: (n) => <NodeName node={n} /> },
  { label: 'Last seen', cell: (n) => (n.last_seen ? <Time iso={n.last_seen} /> : 'never') },
];

export function ComplianceView({ report }: { report: Compliance }) {
  const { frameworks } = report;
  const unscoped = frameworks.filter((f) => f.nodes_in_scope === 0);
  return (
    <>
      <ReportTable caption="Log coverage of in-scope nodes, per framework" columns={COVERAGE_COLUMNS} rows={frameworks} rowKey={(f) => String(f.framework_id)} />
      {unscoped.length > 0 && (
        <p class="status">
          No node is in scope for {unscoped.map((f) => f.framework).join(', ')}: a node is in a framework's scope by CAIRN_FRAMEWORK_SCOPES or the appliance configuration.
        </p>
      )}
      <div class="report-columns">
        <ReportTable caption="Incidents touching in-scope nodes, by status" columns={breakdownColumns(frameworks, (f) => f.incidents_by_status)} rows={frameworks} rowKey={(f) => String(f.framework_id)} />
        <ReportTable caption="Incidents touching in-scope nodes, by severity" columns={breakdownColumns(frameworks, (f) => f.incidents_by_severity)} rows={frameworks} rowKey={(f) => String(f.framework_id)} />
      </div>
      {frameworks
        .filter((f) => f.nodes_silent > 0)
        .map((f) => (
          <ReportTable
            key={f.framework_id}
            caption={`${f.framework}: in-scope nodes not seen in the period${f.nodes_silent > f.silent_nodes.length ? ` (the first ${f.silent_nodes.length} of ${f.nodes_silent})` : ''}`}
            columns={SILENT_COLUMNS}
            rows={f.silent_nodes}
            rowKey={(n) => n.node_id}
          />
        ))}
    </>
  );
}
