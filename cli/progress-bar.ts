// The progress bar of long CLI work (ingest of a file, a backfill, a
// re-parse), on standard error so standard output stays the result. Off a
// terminal it prints a line every 2 s instead of redrawing, so CI logs and
// pipes show progress without control characters.
import { Presets, SingleBar } from 'cli-progress';

/** A bar with this format (cli-progress tokens: {bar}, {percentage}, {value}, {total}, {eta_formatted} and the payload's own). */
export function progressBar(format: string): SingleBar {
  return new SingleBar(
    { format, noTTYOutput: !process.stderr.isTTY, notTTYSchedule: 2000, stream: process.stderr, hideCursor: true },
    Presets.shades_classic,
  );
}
