// Per exporter (labelled by its id: names may change and repeat), on the default registry.
import { Counter, Gauge } from 'prom-client';

export const exporterMetrics = {
  lag: new Gauge({ name: 'svc_exporter_lag_messages', help: 'Messages of artifacts.raw an exporter has not handled yet (its consumer group\'s lag)', labelNames: ['exporter'] as const }),
  artifacts: new Counter({
    name: 'svc_exporter_artifacts_total',
    help: 'Artifacts an exporter handled, by outcome: sent (the destination accepted them), failed (in a delivery attempt that failed; they are tried again), skipped (not matching, another organization\'s, or older than the exporter)',
    labelNames: ['exporter', 'outcome'] as const,
  }),
};
