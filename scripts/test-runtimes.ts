// `npm run test:runtimes`: runs the plugin kit's portable tests (packages/plugin-kit/test/*.test.ts,
// not test/node/) on Node 20, Bun, Deno and workerd. Node 24 runs the same files through vitest
// (`npm run test:node`). Exits non-zero if any test failed or any runtime ran no tests.
import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { bundleReport, bundleTests } from './runtime-harness/bundle.ts';
import { runtimes } from './runtime-harness/runtimes.ts';

const root = resolve(import.meta.dirname, '..');
const testDir = join(root, 'packages', 'plugin-kit', 'test');
const only = process.argv.slice(2); // optional runtime names, e.g. `deno workerd`

const kitTests = readdirSync(testDir)
  .filter((name) => name.endsWith('.test.ts'))
  .sort()
  .map((name) => join(testDir, name));
if (kitTests.length === 0) {
  console.error(`no test files in ${testDir}`);
  process.exit(1);
}
// The shim's own parity test goes first: it proves the shim works on each runtime.
const files = [join(import.meta.dirname, 'runtime-harness', 'shim.test.ts'), ...kitTests];

const outDir = mkdtempSync(join(tmpdir(), 'svc-runtimes-'));
let passed = 0;
let failed = 0;
let empty = 0;
try {
  const started = performance.now();
  const [bundles] = await Promise.all([bundleTests(root, files, outDir), bundleReport(outDir)]);
  console.log(`bundled ${bundles.length} test files in ${ms(started)}`);
  for (const runtime of runtimes(root)) {
    if (only.length > 0 && !only.includes(runtime.name)) continue;
    const began = performance.now();
    const { output, totals } = await runtime.run(outDir, bundles).catch((error: Error) => ({
      output: `${runtime.name} could not start: ${error.message}\n`,
      totals: undefined,
    }));
    process.stdout.write(output);
    console.log(`  (${runtime.name} took ${ms(began)})`);
    if (totals === undefined || totals.passed + totals.failed === 0) {
      console.log(`${runtime.name}: ran no tests`);
      empty++;
      continue;
    }
    passed += totals.passed;
    failed += totals.failed;
  }
} finally {
  rmSync(outDir, { recursive: true, force: true });
}

console.log(`${passed} passed, ${failed} failed`);
process.exitCode = failed > 0 || empty > 0 ? 1 : 0;

function ms(since: number): string {
  return `${Math.round(performance.now() - since)} ms`;
}
