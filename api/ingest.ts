// The last steps of every ingest route (POST /v1/artifacts, OTLP logs): the
// ingest gate (429 while the pipeline is behind), publishing onto
// artifacts.raw through `produce` (answered once the bus holds them; 503
// with Retry-After when the bus's own retries gave up), and the counts in
// /v1/metrics.
import type { Context } from 'koa';
import { artifactsRaw, type RawArtifact } from '../topics/index.js';
import type { ApiDeps } from './deps.js';
import { apiMetrics } from './metrics.js';
import { produce } from './produce.js';

/** Admits and publishes `accepted`; throws the 429 or 503 a sender should retry after, as HttpErrors with Retry-After. */
export async function admitAndPublish(deps: ApiDeps, ctx: Context, accepted: RawArtifact[]): Promise<void> {
  try {
    await deps.ingestGate.admit(accepted.length);
  } catch (err) {
    apiMetrics.throttled.inc();
    throw err;
  }
  await produce(deps, ctx, artifactsRaw, accepted, { what: 'these artifacts (some may have been queued)', then: 'send them again' });
  apiMetrics.ingested.inc({ outcome: 'accepted' }, accepted.length);
}
