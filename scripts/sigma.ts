// How many Sigma rules import into cairn, per folder and in total, and why
// the others do not. Rules whose log source cairn has no parser for are
// counted apart: the target (95% imported) is over the rules cairn maps.
//
//   npm run sigma -- [dir]      (default ../shared/data/sigma)
import fs from 'node:fs';
import path from 'node:path';
import { convertSigma } from '../query/sigma/convert.js';

const dir = path.resolve(process.argv[2] ?? path.join(import.meta.dirname, '..', '..', 'shared', 'data', 'sigma'));
if (!fs.existsSync(dir)) {
  console.error(`no Sigma rules at ${dir}: pass a folder of .yml rules`);
  process.exit(1);
}

function ruleFiles(folder: string): string[] {
  return fs.readdirSync(folder, { withFileTypes: true }).flatMap((e) => {
    const full = path.join(folder, e.name);
    return e.isDirectory() ? ruleFiles(full) : /\.ya?ml$/.test(e.name) ? [full] : [];
  });
}

interface Tally {
  rules: number;
  imported: number;
  unmapped: number;
}

const byFolder = new Map<string, Tally>();
const reasons = new Map<string, string[]>();
const UNMAPPED = /^log source .* is not mapped/;
for (const file of ruleFiles(dir).sort()) {
  const folder = path.relative(dir, path.dirname(file));
  const tally = byFolder.get(folder) ?? { rules: 0, imported: 0, unmapped: 0 };
  byFolder.set(folder, tally);
  for (const result of convertSigma(fs.readFileSync(file, 'utf8'))) {
    tally.rules++;
    if (result.status === 'imported') {
      tally.imported++;
      continue;
    }
    if (UNMAPPED.test(result.reason)) tally.unmapped++;
    const key = result.reason.replace(/"[^"]*"/g, '"…"').replace(/\{[^}]*\}/g, '{…}');
    reasons.set(key, [...(reasons.get(key) ?? []), `${path.relative(dir, file)}${result.status === 'skipped' && UNMAPPED.test(result.reason) ? '' : `: ${result.reason}`}`]);
  }
}

const pct = (n: number, d: number) => (d ? `${((100 * n) / d).toFixed(1)}%` : '-');
console.log(`Sigma rules under ${dir}\n`);
console.log(`${'folder'.padEnd(40)} ${'rules'.padStart(5)} ${'mapped'.padStart(6)} ${'imported'.padStart(8)} ${'of mapped'.padStart(9)}`);
const total: Tally = { rules: 0, imported: 0, unmapped: 0 };
for (const [folder, t] of [...byFolder].sort()) {
  const mapped = t.rules - t.unmapped;
  console.log(`${folder.padEnd(40)} ${String(t.rules).padStart(5)} ${String(mapped).padStart(6)} ${String(t.imported).padStart(8)} ${pct(t.imported, mapped).padStart(9)}`);
  total.rules += t.rules;
  total.imported += t.imported;
  total.unmapped += t.unmapped;
}
const mapped = total.rules - total.unmapped;
console.log(`\nnot imported, by reason:`);
for (const [reason, files] of [...reasons].sort((a, b) => b[1].length - a[1].length)) {
  console.log(`  ${files.length} × ${reason}`);
  for (const f of files.slice(0, UNMAPPED.test(reason) ? 0 : 20)) console.log(`      ${f}`);
}
console.log(`\nTOTAL: ${total.imported} of ${total.rules} rules imported; of the ${mapped} whose log source cairn maps, ${total.imported} (${pct(total.imported, mapped)}); ${total.unmapped} have a log source cairn has no parser for`);
