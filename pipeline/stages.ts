// Every stage, in pipeline order.
import type { Stage } from './stage.js';

export const STAGES: readonly Stage[] = [];

export function findStage(name: string): Stage | undefined {
  return STAGES.find((s) => s.name === name);
}
