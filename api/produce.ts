// What a request sends to the bus goes through `produce`, so every route
// answers the same when the bus refuses: a broker down or moving its
// leaders (the bus's own retries gave up) is 503 with Retry-After, for the
// client to send again, never a 500. Ingest and every route that raises a
// system event alike.
import type { Context } from 'koa';
import { errorMessage, isTransientError } from '../lib/errors.js';
import { publish } from '../pipeline/bus/consume.js';
import type { TopicDef } from '../topics/topic.js';
import type { ApiDeps } from './deps.js';
import { HttpError } from './http-error.js';
import { RETRY_AFTER_SECONDS } from './ingest-gate.js';

export interface Refusal {
  /** What the bus did not take, for the answer: "these artifacts (some may have been queued)". */
  what: string;
  /** What the client should do: "send them again". */
  then: string;
}

export async function produce<T>(deps: ApiDeps, ctx: Context, topic: TopicDef<T>, values: T[], refusal: Refusal): Promise<void> {
  try {
    await publish(deps.bus, topic, values);
  } catch (err) {
    if (!isTransientError(err)) throw err;
    // The cause names brokers and addresses, which are the operator's to read, in the log.
    deps.logger.warn({ requestId: ctx.state.requestId, method: ctx.method, path: ctx.path, topic: topic.name, messages: values.length, err: errorMessage(err) }, 'the bus did not take what a request produced');
    throw new HttpError(
      503,
      'unavailable',
      `the message bus did not take ${refusal.what}; ${refusal.then} after ${RETRY_AFTER_SECONDS} s`,
      { retry_after_seconds: RETRY_AFTER_SECONDS },
      { 'Retry-After': String(RETRY_AFTER_SECONDS) },
    );
  }
}
