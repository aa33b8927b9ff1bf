// The stages by name and the two topologies that run them (pipeline/stages.ts
// has the stages themselves). Names only, so that what only needs the names
// (the CLI's help and checks) does not load every stage.
import type { Topology } from '../config/env.js';

export const STAGE_NAMES = ['exporters', 'store', 'analysis', 'parser', 'enricher', 'leads', 'correlator', 'notifier', 'reprocess'] as const;

export const TOPOLOGY_STAGES: Record<Topology, readonly string[]> = {
  fused: ['exporters', 'store', 'analysis', 'correlator', 'notifier', 'reprocess'],
  staged: ['exporters', 'store', 'parser', 'enricher', 'leads', 'correlator', 'notifier', 'reprocess'],
};
