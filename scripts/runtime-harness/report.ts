// Prints one runtime's failures and its closing line `<runtime>: N passed, N failed`,
// the line scripts/test-runtimes.ts reads back (see `closingLine`).
import type { FileResult } from './suite.ts';

export type Totals = { passed: number; failed: number };

export function report(
  runtime: string,
  results: FileResult[],
  print: (line: string) => void,
): Totals {
  const totals = { passed: 0, failed: 0 };
  for (const result of results) {
    totals.passed += result.passed;
    totals.failed += result.failed;
    for (const failure of result.failures) {
      print(`  ✗ [${runtime}] ${result.file} > ${failure.name}`);
      for (const line of failure.error.split('\n')) print(`      ${line}`);
    }
  }
  print(`${runtime}: ${totals.passed} passed, ${totals.failed} failed`);
  return totals;
}

export function closingLine(runtime: string, output: string): Totals | undefined {
  const escaped = runtime.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
  const match = new RegExp(`^${escaped}: (\\d+) passed, (\\d+) failed$`, 'm').exec(output);
  return match ? { passed: Number(match[1]), failed: Number(match[2]) } : undefined;
}
