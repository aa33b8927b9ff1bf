// The shared sample data the project does not copy into its source (the
// Sigma rules: ../shared/data/sigma says tests read them there):
// CAIRN_SAMPLES_DIR, else ../shared/data beside the repository. .ci/run sets
// CAIRN_SAMPLES_DIR for a clone made elsewhere from a checkout that has it.
import fs from 'node:fs';
import path from 'node:path';

const REPO = path.resolve(import.meta.dirname, '..', '..');

export function samplesDir(): string {
  const candidates = [process.env.CAIRN_SAMPLES_DIR, path.resolve(REPO, '..', 'shared', 'data')].filter((d): d is string => Boolean(d));
  const found = candidates.find((d) => fs.existsSync(path.join(d, 'sigma')));
  if (!found) throw new Error(`the shared sample data (with its sigma/ folder) is not at ${candidates.join(' or ')}: set CAIRN_SAMPLES_DIR`);
  return found;
}

/** The Sigma sample rules (DRL 1.1: each rule's author and id are its attribution). */
export function sigmaSampleDir(): string {
  return path.join(samplesDir(), 'sigma');
}
