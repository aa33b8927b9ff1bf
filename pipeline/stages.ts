// Every stage, in pipeline order.
import type { Stage } from './stage.js';
import { storeStage } from './store/consumer.js';

export const STAGES: readonly Stage[] = [storeStage];

export function findStage(name: string): Stage | undefined {
  return STAGES.find((s) => s.name === name);
}
