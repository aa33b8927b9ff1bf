// Reads a vitest JSON report and prints, on the first line, "passed failed";
// then one line per failed test (file, test name, first line of its message),
// so the tail of a CI log names what failed without the whole log.
import fs from 'node:fs';
import path from 'node:path';

const report = JSON.parse(fs.readFileSync(process.argv[2], 'utf8'));
console.log(report.numPassedTests, report.numFailedTests);
for (const file of report.testResults ?? []) {
  const where = path.relative(process.cwd(), file.name);
  const failed = (file.assertionResults ?? []).filter((test) => test.status === 'failed');
  for (const test of failed) {
    const message = (test.failureMessages?.[0] ?? '').split('\n')[0].slice(0, 300);
    console.log(`${where} > ${test.fullName}: ${message}`);
  }
  // A file that fails before its tests run (an import error, a hook) has no failed test to name.
  if (file.status === 'failed' && failed.length === 0) {
    console.log(`${where}: ${(file.message ?? '').split('\n')[0].slice(0, 300)}`);
  }
}
