// Picks the hot state for the configuration: Redis when a URL is set, else the local journal.
import path from 'node:path';
import fs from 'node:fs/promises';
import type { Config } from '../../config/env.js';
import { LocalState } from './local-state.js';
import { RedisState } from './redis-state.js';
import type { HotState } from './types.js';

export type { HotState } from './types.js';

export async function createHotState(config: Config): Promise<HotState> {
  if (config.redisUrl) return new RedisState(config.redisUrl, `cairn:${config.orgId}:`);
  await fs.mkdir(config.dataDir, { recursive: true });
  return LocalState.open(path.join(config.dataDir, 'state.journal'));
}
export { announceChange, currentNotice, type ChangeKind } from './change-notices.js';
