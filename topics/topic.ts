// What a topic is: its name, its dead-letter sibling, the schema of its
// messages and the partition key. Which stages read it depends on the
// pipeline topology (pipeline/stages.ts).
import type { z } from 'zod';

export interface TopicDef<T = unknown> {
  readonly name: string;
  /** Where messages a consumer cannot handle go, with the reason in headers. */
  readonly dlq: string;
  readonly schema: z.ZodType<T>;
  /** Partition key: messages with the same key are delivered in order. */
  readonly key: (message: T) => string | null;
}

export function defineTopic<T>(def: Omit<TopicDef<T>, 'dlq'>): TopicDef<T> {
  return { ...def, dlq: dlqName(def.name) };
}

export function dlqName(topic: string): string {
  return `${topic}.dlq`;
}
