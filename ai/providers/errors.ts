// Turns what a provider SDK throws into a ProviderError: a 502 with the
// provider's own message, or a 504 when it did not answer in time. Both SDKs
// share the same error classes in shape; each adapter passes its own.
import { OutboundError } from '../../lib/outbound/client.js';
import { ProviderError } from './types.js';

type ErrorClass = abstract new (...args: never[]) => Error;

export interface SdkErrors {
  APIError: ErrorClass;
  APIConnectionError: ErrorClass;
  APIConnectionTimeoutError: ErrorClass;
}

/** The guarded client's error behind an SDK's connection error: it says what went wrong ("cannot reach ...", "resolves to an address cairn does not call"). */
function outboundCause(err: unknown): OutboundError | null {
  for (let e: unknown = err, depth = 0; e instanceof Error && depth < 5; e = e.cause, depth++) {
    if (e instanceof OutboundError) return e;
  }
  return null;
}

export function toProviderError(err: unknown, sdk: SdkErrors, provider: string, timeoutMs: number): ProviderError {
  if (err instanceof ProviderError) return err;
  const outbound = outboundCause(err);
  if (err instanceof sdk.APIConnectionTimeoutError || outbound?.code === 'timeout' || (err instanceof Error && err.name === 'AbortError')) {
    return new ProviderError('timeout', `the ${provider} provider did not answer within ${Math.round(timeoutMs / 1000)} s`, null, { cause: err });
  }
  if (outbound) return new ProviderError('upstream', `the ${provider} provider could not be reached: ${outbound.message}`, null, { cause: err });
  if (err instanceof sdk.APIError) {
    const status = (err as Error & { status?: unknown }).status;
    return new ProviderError('upstream', `the ${provider} provider answered: ${err.message}`, typeof status === 'number' ? status : null, { cause: err });
  }
  if (err instanceof sdk.APIConnectionError) return new ProviderError('upstream', `the ${provider} provider could not be reached: ${err.message}`, null, { cause: err });
  // Anything else is cairn's own fault (a bug), not the provider's: let it be a 500.
  throw err;
}
