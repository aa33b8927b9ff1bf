// Counters every stage keeps (Prometheus, `svc_` prefix), on the default registry.
import { Counter, Histogram } from 'prom-client';

const labelNames = ['group', 'topic'] as const;

export const pipelineMetrics = {
  received: new Counter({ name: 'svc_pipeline_messages_received_total', help: 'Messages handed to a stage', labelNames }),
  handled: new Counter({ name: 'svc_pipeline_messages_handled_total', help: 'Messages a stage finished and committed', labelNames }),
  deadLettered: new Counter({ name: 'svc_pipeline_messages_dead_lettered_total', help: 'Messages sent to a dead-letter topic', labelNames }),
  retried: new Counter({ name: 'svc_pipeline_batch_retries_total', help: 'Batches retried after a transient failure', labelNames }),
  batchSeconds: new Histogram({
    name: 'svc_pipeline_batch_duration_seconds',
    help: 'Time a stage spends on one batch, retries included',
    labelNames,
    buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10],
  }),
};
