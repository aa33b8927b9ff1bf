// The last steps of every ingest route (POST /v1/artifacts, OTLP logs): the
// ingest gate (429 while the pipeline is behind), publishing onto
// artifacts.raw (answered once the bus holds them), a 503 with Retry-After
// when the bus's own retries gave up, and the counts in /v1/metrics.
import type { Context } from 'koa';
import { errorMessage, isTransientError } from '../lib/errors.js';
import { publish } from '../pipeline/bus/consume.js';
import { artifactsRaw, type RawArtifact } from '../topics/index.js';
import type { ApiDeps } from './deps.js';
import { HttpError } from './http-error.js';
import { RETRY_AFTER_SECONDS } from './ingest-gate.js';
import { apiMetrics } from './metrics.js';

/** Admits and publishes `accepted`; throws the 429 or 503 a sender should retry after, as HttpErrors with Retry-After. */
export async function admitAndPublish(deps: ApiDeps, ctx: Context, accepted: RawArtifact[]): Promise<void> {
  try {
    await deps.ingestGate.admit(accepted.length);
  } catch (err) {
    apiMetrics.throttled.inc();
    throw err;
  }
  try {
    await publish(deps.bus, artifactsRaw, accepted);
  } catch (err) {
    if (!isTransientError(err)) throw err;
    // The bus's own retries gave up (a broker down or moving its leaders): a sensor should send again, not drop the batch.
    // The cause names brokers and addresses, which are the operator's to read, in the log.
    deps.logger.warn({ requestId: ctx.state.requestId, err: errorMessage(err), artifacts: accepted.length }, 'the bus did not take an ingest request');
    throw new HttpError(
      503,
      'unavailable',
      `the message bus did not take these artifacts (some may have been queued); send them again after ${RETRY_AFTER_SECONDS} s`,
      { retry_after_seconds: RETRY_AFTER_SECONDS },
      { 'Retry-After': String(RETRY_AFTER_SECONDS) },
    );
  }
  apiMetrics.ingested.inc({ outcome: 'accepted' }, accepted.length);
}
