// The provider an AI configuration names, with its HTTP going through the
// guarded outbound client (CAIRN_OUTBOUND_ALLOW lets a local model server
// through).
import type { AiProvider } from '../../clickhouse/tables/ai-configs.js';
import type { OutboundClient } from '../../lib/outbound/client.js';
import { guardedFetch } from '../../lib/outbound/fetch.js';
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

/** The provider's SDK loads on first use: every cairn process would otherwise load both at start (0.6 s, and their memory) for a feature many never use. */
export async function createProvider(choice: ProviderChoice, outbound: OutboundClient): Promise<ChatProvider> {
  const settings = { baseUrl: choice.baseUrl, model: choice.model, apiKey: choice.apiKey, fetch: guardedFetch(outbound, { timeoutMs: choice.timeoutMs, maxBytes: MAX_RESPONSE_BYTES }) };
  switch (choice.provider) {
    case 'openai':
      return (await import('./openai.js')).openAiProvider(settings);
    case 'anthropic':
      return (await import('./anthropic.js')).anthropicProvider(settings);
  }
}
