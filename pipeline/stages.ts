// Every stage, in pipeline order.
import { enricherStage } from './enricher/consumer.js';
import { parserStage } from './parser/consumer.js';
import type { Stage } from './stage.js';
import { storeStage } from './store/consumer.js';

export const STAGES: readonly Stage[] = [storeStage, parserStage, enricherStage];

export function findStage(name: string): Stage | undefined {
  return STAGES.find((s) => s.name === name);
}
