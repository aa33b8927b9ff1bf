// The Prometheus text exposition of every cairn process: this one's registry
// and the metrics the others publish to hot state with their heartbeats,
// each sample labelled with its `instance`, one HELP and TYPE per name (what
// a scraper expects when one endpoint answers for several processes).
import { register } from 'prom-client';
import type { HotState } from '../../pipeline/state/types.js';
import { METRIC_INSTANCES_KEY, metricsKey } from '../health/process-health.js';

interface JsonMetric {
  name: string;
  help: string;
  type: string;
  values: { value: number; labels: Record<string, string | number>; metricName?: string }[];
}

export const CONTENT_TYPE = register.contentType;

function escapeLabel(value: string): string {
  return value.replace(/\\/g, '\\\\').replace(/\n/g, '\\n').replace(/"/g, '\\"');
}

function escapeHelp(value: string): string {
  return value.replace(/\\/g, '\\\\').replace(/\n/g, '\\n');
}

function formatValue(value: number): string {
  if (Number.isNaN(value)) return 'NaN';
  if (value === Infinity) return '+Inf';
  if (value === -Infinity) return '-Inf';
  return String(value);
}

/** One exposition from several processes' metrics; `instance` joins each sample's labels. */
export function renderMerged(sources: { instance: string; metrics: JsonMetric[] }[]): string {
  const byName = new Map<string, { help: string; type: string; lines: string[] }>();
  for (const { instance, metrics } of sources) {
    for (const metric of metrics) {
      const entry = byName.get(metric.name) ?? { help: metric.help, type: String(metric.type), lines: [] };
      byName.set(metric.name, entry);
      for (const sample of metric.values) {
        const labels = { ...sample.labels, instance };
        const text = Object.entries(labels)
          .map(([key, value]) => `${key}="${escapeLabel(String(value))}"`)
          .join(',');
        entry.lines.push(`${sample.metricName ?? metric.name}{${text}} ${formatValue(sample.value)}`);
      }
    }
  }
  const out: string[] = [];
  for (const [name, { help, type, lines }] of [...byName].sort(([a], [b]) => a.localeCompare(b))) {
    out.push(`# HELP ${name} ${escapeHelp(help)}`, `# TYPE ${name} ${type}`, ...lines);
  }
  return `${out.join('\n')}\n`;
}

/** This process's metrics and those other live processes published, as one exposition. */
export async function exposition(state: HotState, ownInstance: string, freshMs: number): Promise<string> {
  const sources = [{ instance: ownInstance, metrics: (await register.getMetricsAsJSON()) as unknown as JsonMetric[] }];
  const now = Date.now();
  for (const instance of await state.windowMembers(METRIC_INSTANCES_KEY, now - freshMs, now + 60_000)) {
    if (instance === ownInstance) continue;
    const text = await state.get(metricsKey(instance));
    if (text) sources.push({ instance, metrics: JSON.parse(text) as JsonMetric[] });
  }
  return renderMerged(sources);
}
