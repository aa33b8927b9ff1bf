// The reports as GET /api/v1/reports/<type> answers them (docs/reports.md;
// reports/reports.ts builds them), and the snapshots that keep them.

export const REPORT_TYPES = ['executive', 'compliance', 'tool-effectiveness', 'cost-savings'] as const;
export type ReportType = (typeof REPORT_TYPES)[number];

export const REPORT_LABELS: Record<ReportType, string> = {
  executive: 'Executive overview',
  compliance: 'Compliance per framework',
  'tool-effectiveness': 'Tool effectiveness',
  'cost-savings': 'Cost and savings',
};

export interface Period {
  start: string;
  end: string;
}

export interface Compared {
  current: number | null;
  previous: number | null;
}

export interface Executive {
  period: Period;
  previous_period: Period;
  incidents: Compared;
  by_severity: Record<string, Compared>;
  by_status: Record<string, Compared>;
  true_positives: Compared;
  false_positives: Compared;
  precision: Compared;
  time_to_detect_seconds: { mean: Compared; p90: Compared };
  time_to_resolve_seconds: { mean: Compared; p90: Compared };
  artifacts_by_source: Array<{ source: string; current: number; previous: number }>;
  top_attacking_addresses: Array<{ value: string; node_id: string; incidents: number; previous_incidents: number }>;
  most_targeted_nodes: Array<{ type: string; value: string; node_id: string; incidents: number; previous_incidents: number }>;
}

export interface FrameworkCompliance {
  framework_id: number;
  framework: string;
  nodes_in_scope: number;
  nodes_reporting: number;
  nodes_silent: number;
  log_coverage: number | null;
  silent_nodes: Array<{ node_id: string; type: string; value: string; last_seen: string | null }>;
  incidents: number;
  incidents_by_status: Record<string, number>;
  incidents_by_severity: Record<string, number>;
  open_older_than_7_days: number;
  open_older_than_30_days: number;
}

export interface Compliance {
  period: Period;
  frameworks: FrameworkCompliance[];
}

export interface Effectiveness {
  leads: number;
  observations: number;
  incidents: number;
  true_positives: number;
  false_positives: number;
  precision: number | null;
  mean_time_to_detect_seconds: number | null;
}

export interface ToolEffectiveness {
  period: Period;
  sources: Array<Effectiveness & { source: string; artifacts: number; parsed: number; parse_rate: number | null }>;
  rules: Array<Effectiveness & { rule_id: string; rule_name: string }>;
  rules_never_fired: Array<{ rule_id: string; rule_name: string }>;
  sources_without_leads: string[];
}

export interface Prices {
  ingest_per_gb: number;
  storage_per_gb_month: number;
  analyst_minutes_per_lead: number;
  analyst_minutes_per_incident: number;
  analyst_hourly_rate: number;
}

export interface CostSavings {
  period: Period;
  prices: Prices;
  sources: Array<{ source: string; ingested_bytes: number; stored_bytes: number; ingest_cost: number; storage_cost: number; true_positives: number; cost_per_true_positive: number | null }>;
  rules: Array<{ rule_id: string; rule_name: string; leads: number; analyst_cost: number; true_positives: number; cost_per_true_positive: number | null }>;
  savings: {
    leads_in_incidents: number;
    incidents: number;
    leads_folded: number;
    analyst_minutes_saved_by_correlation: number;
    false_positive_incidents_closed: number;
    analyst_minutes_saved_by_false_positives_closed: number;
    analyst_cost_saved: number;
  };
  totals: { ingested_bytes: number; stored_bytes: number; ingest_cost: number; storage_cost: number; analyst_cost: number };
}

/** A report with its type, so one view can render any of them (a live report or a snapshot's). */
export type AnyReport =
  | { type: 'executive'; report: Executive }
  | { type: 'compliance'; report: Compliance }
  | { type: 'tool-effectiveness'; report: ToolEffectiveness }
  | { type: 'cost-savings'; report: CostSavings };

export interface SnapshotSummary {
  id: string;
  type: ReportType;
  period_start: string;
  period_end: string;
  parameters: { framework_id?: number; prices?: Prices };
  trigger: 'schedule' | 'manual';
  created_by: string;
  created_at: string;
}

export interface Snapshot extends SnapshotSummary {
  report: unknown;
}

/** A report the API answered, tagged with the type it was asked for. */
export function tagged(type: ReportType, report: unknown): AnyReport {
  return { type, report } as AnyReport;
}
