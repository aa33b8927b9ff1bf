// What the API does (Prometheus, `svc_` prefix, default registry): requests
// by route and status with their latency, and what ingest accepted, rejected
// and turned away.
import type { Middleware } from 'koa';
import { Counter, Histogram } from 'prom-client';

export const apiMetrics = {
  requests: new Counter({ name: 'svc_http_requests_total', help: 'HTTP requests answered', labelNames: ['method', 'route', 'status'] as const }),
  requestSeconds: new Histogram({
    name: 'svc_http_request_duration_seconds',
    help: 'Time from request to response',
    labelNames: ['method', 'route'] as const,
    buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10],
  }),
  ingested: new Counter({ name: 'svc_ingest_artifacts_total', help: 'Artifacts posted to ingest, by outcome (accepted or rejected)', labelNames: ['outcome'] as const }),
  throttled: new Counter({ name: 'svc_ingest_throttled_total', help: 'Ingest requests answered 429 because the pipeline was behind' }),
  otlpRecords: new Counter({
    name: 'svc_otlp_log_records_total',
    help: 'OpenTelemetry log records received over OTLP/HTTP, by encoding (protobuf, json) and outcome (accepted or rejected); also counted in svc_ingest_artifacts_total',
    labelNames: ['encoding', 'outcome'] as const,
  }),
};

/** Counts and times every request under its route pattern (not its path, which would make a series per id). */
export const requestMetrics: Middleware = async (ctx, next) => {
  const started = performance.now();
  try {
    await next();
  } finally {
    const route = (ctx as { _matchedRoute?: string })._matchedRoute ?? 'unmatched';
    apiMetrics.requests.inc({ method: ctx.method, route, status: String(ctx.status) });
    apiMetrics.requestSeconds.observe({ method: ctx.method, route }, (performance.now() - started) / 1000);
  }
};
