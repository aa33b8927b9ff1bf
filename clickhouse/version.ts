// Row versions for ReplacingMergeTree tables: microseconds since the epoch,
// strictly increasing within a process, so the latest write wins on merge.
let last = 0;

export function nextVersion(): number {
  last = Math.max(Date.now() * 1000, last + 1);
  return last;
}
