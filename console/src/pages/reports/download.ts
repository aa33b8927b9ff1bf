// A report or snapshot saved as the CSV the API writes, under its file name;
// what happened goes to the page's notice or error line.
import type { Signal } from '@preact/signals';
import { ApiError, download } from '../../api.ts';

export async function saveCsv(path: string, query: Record<string, string | undefined>, lines: { notice: Signal<string | null>; error: Signal<string | null> }): Promise<void> {
  try {
    lines.notice.value = `Saved as ${await download(path, { ...query, format: 'csv' })}`;
    lines.error.value = null;
  } catch (err) {
    lines.error.value = err instanceof ApiError ? err.message : String(err);
  }
}
