// What the store does for cairn (Prometheus, `svc_` prefix, default registry):
// rows inserted and how long inserts take, per table.
import { Counter, Histogram } from 'prom-client';

export const storeMetrics = {
  insertRows: new Counter({ name: 'svc_store_insert_rows_total', help: 'Rows inserted into the store', labelNames: ['table'] as const }),
  insertSeconds: new Histogram({
    name: 'svc_store_insert_duration_seconds',
    help: 'Time one insert into the store takes',
    labelNames: ['table'] as const,
    buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10],
  }),
};

/** Times an insert of `rows` rows into `table`. */
export async function timedInsert<T>(table: string, rows: number, insert: () => Promise<T>): Promise<T> {
  const end = storeMetrics.insertSeconds.startTimer({ table });
  try {
    const result = await insert();
    storeMetrics.insertRows.inc({ table }, rows);
    return result;
  } finally {
    end();
  }
}
