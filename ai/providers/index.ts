// The provider an AI configuration names, with its HTTP going through the
// guarded outbound client (CAIRN_OUTBOUND_ALLOW lets a local model server
// through).
import type { AiProvider } from '../../clickhouse/tables/ai-configs.js';
import type { OutboundClient } from '../../lib/outbound/client.js';
import { guardedFetch } from '../../lib/outbound/fetch.js';
import { anthropicProvider } from './anthropic.js';
import { openAiProvider } from './openai.js';
import type { ChatProvider } from './types.js';

/** A model's answer may be long; 20 MiB is far past any real one and still bounds memory. */
const MAX_RESPONSE_BYTES = 20 * 1024 * 1024;

export interface ProviderChoice {
  provider: AiProvider;
  baseUrl: string;
  model: string;
  /** Opened (the caller unseals it just before use). */
  apiKey: string;
  /** Longest a single request may take. */
  timeoutMs: number;
}

export function createProvider(choice: ProviderChoice, outbound: OutboundClient): ChatProvider {
  const settings = { baseUrl: choice.baseUrl, model: choice.model, apiKey: choice.apiKey, fetch: guardedFetch(outbound, { timeoutMs: choice.timeoutMs, maxBytes: MAX_RESPONSE_BYTES }) };
  switch (choice.provider) {
    case 'openai':
      return openAiProvider(settings);
    case 'anthropic':
      return anthropicProvider(settings);
  }
}
