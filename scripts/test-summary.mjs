// Prints vitest's own counts as the plain line CI reads: "N passed, N failed[, N skipped]", summed
// over every results file named (test-results.json when none is: `make test`'s; CI adds the run on
// Node 22 inside the image, test-results-node22.json). Above it, one line per failure, so that
// the end of a long log, often all that is kept of it, says which tests failed and why.
import fs from 'node:fs';

const SHOWN_FAILURES = 20;
const MESSAGE_CHARS = 400;

const files = process.argv.length > 2 ? process.argv.slice(2) : ['test-results.json'];
let passed = 0;
let failed = 0;
let skipped = 0;
const failures = [];
/** A failure's message on one line, without the terminal's colours, cut to MESSAGE_CHARS. */
const oneLine = (message) =>
  String(message ?? '')
    .replace(/\u001b\[[0-9;]*m/g, '')
    .replace(/\s+/g, ' ')
    .trim()
    .slice(0, MESSAGE_CHARS);
for (const file of files) {
  if (!fs.existsSync(file)) {
    console.log(`no test results in ${file}: the test run did not complete`);
    failed += 1;
    continue;
  }
  const results = JSON.parse(fs.readFileSync(file, 'utf8'));
  for (const result of results.testResults) {
    const failedTests = result.assertionResults.filter((a) => a.status === 'failed');
    for (const test of failedTests) {
      failures.push(`${result.name} > ${test.fullName}: ${oneLine(test.failureMessages[0])}`);
    }
    // A file that failed without a failed test (it did not load, or a beforeAll threw and its
    // tests were skipped) counts as one failure, so that such a run can never read as green.
    if (result.status === 'failed' && failedTests.length === 0) {
      failures.push(`${result.name}: ${oneLine(result.message)}`);
      failed += 1;
    }
  }
  passed += results.numPassedTests;
  failed += results.numFailedTests;
  skipped += results.numPendingTests + results.numTodoTests;
}
for (const failure of failures.slice(0, SHOWN_FAILURES)) console.log(`FAILED ${failure}`);
if (failures.length > SHOWN_FAILURES) console.log(`… and ${failures.length - SHOWN_FAILURES} more failures`);
console.log(`${passed} passed, ${failed} failed${skipped > 0 ? `, ${skipped} skipped` : ''}`);
process.exit(failed > 0 || passed === 0 ? 1 : 0);
