// Prints "N passed, N failed" from vitest's JSON report and exits non-zero on any failure,
// including a run that crashed before writing a report or that ran no test at all.
import { existsSync, readFileSync } from 'node:fs';

const [reportPath, vitestStatus = '1'] = process.argv.slice(2);
if (!reportPath || !existsSync(reportPath)) {
  console.log('0 passed, 1 failed');
  console.error(`test-summary: no vitest report at ${reportPath}; vitest exited ${vitestStatus}`);
  process.exit(1);
}
const report = JSON.parse(readFileSync(reportPath, 'utf8'));
const passed = report.numPassedTests ?? 0;
// Suites that failed to load count as failures: their tests never ran.
const failedSuites = (report.testResults ?? []).filter(
  (suite) => suite.status === 'failed' && (suite.assertionResults ?? []).length === 0,
).length;
const failed = (report.numFailedTests ?? 0) + failedSuites;
console.log(`${passed} passed, ${failed} failed`);
process.exit(failed > 0 || passed === 0 || vitestStatus !== '0' ? 1 : 0);
