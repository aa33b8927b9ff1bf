// Every stage, in pipeline order.
import { correlatorStage } from './correlator/consumer.js';
import { enricherStage } from './enricher/consumer.js';
import { leadsStage } from './leads/consumer.js';
import { parserStage } from './parser/consumer.js';
import type { Stage } from './stage.js';
import { storeStage } from './store/consumer.js';

export const STAGES: readonly Stage[] = [storeStage, parserStage, enricherStage, leadsStage, correlatorStage];

export function findStage(name: string): Stage | undefined {
  return STAGES.find((s) => s.name === name);
}
