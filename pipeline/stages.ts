// Every stage, and the two topologies that run them (their stage names are in
// pipeline/topologies.ts, apart, so that what needs only names loads no stage).
//
// fused (the default): store, analysis, correlator. The analysis stage does
//   the parser's, the enricher's and the rule stage's work as one consumer of
//   artifacts.raw, on worker threads, and commits once after all its writes:
//   no JSON passes through artifacts.parsed and artifacts.enriched.
// staged: store, parser, enricher, leads, correlator, each its own consumer
//   group on its own topic, so each can be scaled apart (`cairn worker <stage>`).
//
// Both write the same rows with the same ids; the topology only decides
// which consumer groups read which topics, and so what the in-process bus
// keeps and what ingest backpressure watches.
import type { Topology } from '../config/env.js';
import type { TopicSpec } from './bus/index.js';
import { analysisStage } from './analysis/consumer.js';
import { correlatorStage } from './correlator/consumer.js';
import { enricherStage } from './enricher/consumer.js';
import { exportersStage } from './exporters/consumer.js';
import { leadsStage } from './leads/consumer.js';
import { notifierStage } from './notifier/consumer.js';
import { parserStage } from './parser/consumer.js';
import type { Stage } from './stage.js';
import { reprocessStage } from './reprocess/consumer.js';
import { storeStage } from './store/consumer.js';
import { TOPICS } from '../topics/index.js';
import { TOPOLOGY_STAGES } from './topologies.js';

/** In the order of STAGE_NAMES (pipeline/topologies.ts). */
export const STAGES: readonly Stage[] = [exportersStage, storeStage, analysisStage, parserStage, enricherStage, leadsStage, correlatorStage, notifierStage, reprocessStage];

export function findStage(name: string): Stage | undefined {
  return STAGES.find((s) => s.name === name);
}

/** The consumer groups that read `topic` in a topology. */
export function consumersOf(topic: string, topology: Topology): string[] {
  return TOPOLOGY_STAGES[topology].filter((name) => findStage(name)?.input === topic);
}

/** Every topic and its dead-letter sibling, with the groups that read them in a topology, as the bus creates them. */
export function topicSpecs(topology: Topology): TopicSpec[] {
  return TOPICS.flatMap((t) => [
    { name: t.name, consumers: consumersOf(t.name, topology) },
    { name: t.dlq, consumers: [] },
  ]);
}
