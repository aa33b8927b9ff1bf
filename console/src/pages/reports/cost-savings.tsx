// Cost and savings: what the data cost to take in and keep per source, what
// triaging each rule's leads costs, and the analyst time correlation saved;
// with the prices the API assumed, since every cost follows from them.
import { bytes, minutes, money, shown } from './format.ts';
import { Figure, ReportTable, RuleName, type Column } from './report-table.tsx';
import type { CostSavings } from './types.ts';

type Source = CostSavings['sources'][number];
type Rule = CostSavings['rules'][number];

const SOURCE_COLUMNS: Column<Source>[] = [
  { label: 'Source', cell: (s) => s.source },
  { label: 'Ingested', cell: (s) => shown(s.ingested_bytes, bytes), number: true },
  { label: 'Stored (compressed)', cell: (s) => shown(s.stored_bytes, bytes), number: true },
  { label: 'Ingest cost', cell: (s) => shown(s.ingest_cost, money), number: true },
  { label: 'Storage cost', cell: (s) => shown(s.storage_cost, money), number: true },
  { label: 'True positives', cell: (s) => shown(s.true_positives), number: true },
  { label: 'Cost per true positive', cell: (s) => shown(s.cost_per_true_positive, money), number: true },
];

const RULE_COLUMNS: Column<Rule>[] = [
  { label: 'Lead rule', cell: (r) => <RuleName rule={r} /> },
  { label: 'Leads', cell: (r) => shown(r.leads), number: true },
  { label: 'Analyst cost', cell: (r) => shown(r.analyst_cost, money), number: true },
  { label: 'True positives', cell: (r) => shown(r.true_positives), number: true },
  { label: 'Cost per true positive', cell: (r) => shown(r.cost_per_true_positive, money), number: true },
];

export function CostSavingsView({ report: r }: { report: CostSavings }) {
  const { prices, savings, totals } = r;
  return (
    <>
      <h2 id="assumptions-title">Assumptions</h2>
      <dl class="figures" aria-labelledby="assumptions-title">
        <Figure label="Ingest, per GiB" value={prices.ingest_per_gb} format={money} />
        <Figure label="Storage, per GiB and month" value={prices.storage_per_gb_month} format={money} />
        <Figure label="Analyst time per lead" value={prices.analyst_minutes_per_lead} format={minutes} />
        <Figure label="Analyst time per incident" value={prices.analyst_minutes_per_incident} format={minutes} />
        <Figure label="Analyst hourly rate" value={prices.analyst_hourly_rate} format={money} />
      </dl>
      <p class="status">
        Costs are in the currency of these prices (the report names none); GiB are 1024³ bytes, a month is 30 days. The API takes other prices as query parameters (docs/reports.md).
      </p>
      <h2 id="totals-title">Totals</h2>
      <dl class="figures" aria-labelledby="totals-title">
        <Figure label="Ingested" value={totals.ingested_bytes} format={bytes} />
        <Figure label="Stored (compressed)" value={totals.stored_bytes} format={bytes} />
        <Figure label="Ingest cost" value={totals.ingest_cost} format={money} />
        <Figure label="Storage cost" value={totals.storage_cost} format={money} />
        <Figure label="Analyst cost of leads" value={totals.analyst_cost} format={money} />
      </dl>
      <h2 id="savings-title">Savings</h2>
      <dl class="figures" aria-labelledby="savings-title">
        <Figure label="Leads in incidents" value={savings.leads_in_incidents} />
        <Figure label="Incidents" value={savings.incidents} />
        <Figure label="Leads folded into incidents" value={savings.leads_folded} />
        <Figure label="Analyst time saved by correlation" value={savings.analyst_minutes_saved_by_correlation} format={minutes} />
        <Figure label="False-positive incidents closed" value={savings.false_positive_incidents_closed} />
        <Figure label="Analyst time saved by closing false positives" value={savings.analyst_minutes_saved_by_false_positives_closed} format={minutes} />
        <Figure label="Analyst cost saved by correlation" value={savings.analyst_cost_saved} format={money} />
      </dl>
      <ReportTable caption="Sources: bytes ingested and stored, and their cost" columns={SOURCE_COLUMNS} rows={r.sources} rowKey={(s) => s.source} />
      <ReportTable caption="Lead rules: the analyst cost of their leads" columns={RULE_COLUMNS} rows={r.rules} rowKey={(x) => x.rule_id} empty="no lead was raised in this period." />
    </>
  );
}
