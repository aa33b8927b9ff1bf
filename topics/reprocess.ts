// reprocess.tasks: the work of re-parsing jobs (POST /v1/reprocess), spread
// over the members of the reprocess consumer group. A job is planned by one
// task, done as slices of the artifacts table's key range, and finished by
// another (pipeline/reprocess/).
import { z } from 'zod';
import { defineTopic } from './topic.js';

/**
 * A place in the artifacts table's key (org_id, timestamp, id) within one
 * organization. The id is any 128-bit UUID the table holds, whatever its
 * version bits.
 */
export const KeyCursor = z.object({ timestamp: z.iso.datetime(), id: z.string().regex(/^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i, 'must be a UUID') });
export type KeyCursor = z.infer<typeof KeyCursor>;

const Job = { org_id: z.string().min(1), job_id: z.uuid() };

export const ReprocessTask = z.discriminatedUnion('kind', [
  /** Cut the job's range into slices and send them. */
  z.object({ kind: z.literal('plan'), ...Job }),
  /** Re-parse the artifacts of a partition (day of arrival, YYYYMMDD) with keys in [from, to); null is the range's own start or end. */
  z.object({
    kind: z.literal('slice'),
    ...Job,
    slice: z.number().int().min(0),
    partition: z.string().regex(/^\d{8}$/, 'must be a partition id (YYYYMMDD)'),
    from: KeyCursor.nullable(),
    to: KeyCursor.nullable(),
  }),
  /** Every slice is done (or the job was cancelled): fold the patches and close the job. */
  z.object({ kind: z.literal('finish'), ...Job }),
]);
export type ReprocessTask = z.infer<typeof ReprocessTask>;

export const reprocessTasks = defineTopic<ReprocessTask>({
  name: 'reprocess.tasks',
  schema: ReprocessTask,
  // The slices of a job spread over the partitions, and so over the group's members.
  key: (task) => `${task.job_id}/${task.kind === 'slice' ? task.slice : task.kind}`,
});
