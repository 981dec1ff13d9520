// Prints vitest's own counts as the plain line CI reads: "N passed, N failed[, N skipped]".
import fs from 'node:fs';

const file = process.argv[2] ?? 'test-results.json';
if (!fs.existsSync(file)) {
  console.log(`no test results in ${file}: the test run did not complete`);
  console.log('0 passed, 1 failed');
  process.exit(1);
}
const results = JSON.parse(fs.readFileSync(file, 'utf8'));
const passed = results.numPassedTests;
// A file that failed without a failed test (it did not load, or a beforeAll threw and its tests
// were skipped) counts as one failure, so that such a run can never read as green.
const brokenFiles = results.testResults.filter(
  (r) => r.status === 'failed' && !r.assertionResults.some((a) => a.status === 'failed'),
).length;
const failed = results.numFailedTests + brokenFiles;
const skipped = results.numPendingTests + results.numTodoTests;
console.log(`${passed} passed, ${failed} failed${skipped > 0 ? `, ${skipped} skipped` : ''}`);
process.exit(failed > 0 || passed === 0 ? 1 : 0);
