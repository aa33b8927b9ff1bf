// Schemas shared by routes, so that the same rules hold everywhere.
import { z } from 'zod';

/** Largest page any list returns; a larger `limit` is a 400, not silently clamped. */
export const MAX_PAGE_SIZE = 1000;
export const DEFAULT_PAGE_SIZE = 50;

export const Pagination = z.object({
  limit: z.coerce
    .number({ message: 'limit must be an integer' })
    .int('limit must be an integer')
    .min(1, 'limit must be at least 1')
    .max(MAX_PAGE_SIZE, `limit must be at most ${MAX_PAGE_SIZE}`)
    .default(DEFAULT_PAGE_SIZE),
  offset: z.coerce.number({ message: 'offset must be an integer' }).int('offset must be an integer').min(0, 'offset must be 0 or more').default(0),
});

export const IdParams = z.object({ id: z.uuid({ message: 'id must be a UUID' }) });

/** A query-string boolean: only "true" and "false" ("false" is a truthy string). */
export const QueryBoolean = z.enum(['true', 'false'], { message: 'must be true or false' }).transform((v) => v === 'true');

export const Timestamp = z.iso.datetime({ offset: true, message: 'must be an ISO 8601 timestamp, e.g. 2026-01-02T03:04:05Z' });

/** Lists carry their collection under a plural key plus total, limit and offset. */
export function listData<K extends string, T extends z.ZodType>(key: K, item: T) {
  return z.object({ [key]: z.array(item), total: z.number().int(), limit: z.number().int(), offset: z.number().int() } as {
    [P in K]: z.ZodArray<T>;
  } & { total: z.ZodNumber; limit: z.ZodNumber; offset: z.ZodNumber });
}
