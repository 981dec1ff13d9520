// Prints vitest's own counts as the plain line CI reads: "N passed, N failed[, N skipped]", summed
// over every results file named (test-results.json when none is: `make test`'s; CI adds the run on
// Node 22 inside the image, test-results-node22.json).
import fs from 'node:fs';

const files = process.argv.length > 2 ? process.argv.slice(2) : ['test-results.json'];
let passed = 0;
let failed = 0;
let skipped = 0;
for (const file of files) {
  if (!fs.existsSync(file)) {
    console.log(`no test results in ${file}: the test run did not complete`);
    failed += 1;
    continue;
  }
  const results = JSON.parse(fs.readFileSync(file, 'utf8'));
  // A file that failed without a failed test (it did not load, or a beforeAll threw and its tests
  // were skipped) counts as one failure, so that such a run can never read as green.
  const brokenFiles = results.testResults.filter(
    (r) => r.status === 'failed' && !r.assertionResults.some((a) => a.status === 'failed'),
  ).length;
  passed += results.numPassedTests;
  failed += results.numFailedTests + brokenFiles;
  skipped += results.numPendingTests + results.numTodoTests;
}
console.log(`${passed} passed, ${failed} failed${skipped > 0 ? `, ${skipped} skipped` : ''}`);
process.exit(failed > 0 || passed === 0 ? 1 : 0);
