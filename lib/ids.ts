// Deterministic ids: the same parts give the same UUIDv5, so replays and
// parallel workers name the same thing the same way.
import { v5 as uuidv5 } from 'uuid';

/** cairn's UUIDv5 namespace (random, fixed forever). */
export const CAIRN_NAMESPACE = '6f0d3c1e-8a52-4b7e-9c1d-2f4a7e9b5c30';

export function stableId(...parts: string[]): string {
  return uuidv5(parts.join('\u0000'), CAIRN_NAMESPACE);
}
