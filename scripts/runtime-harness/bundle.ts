// Bundles each test file into one self-contained, runtime-neutral ES module (kit, jose and
// @cfworker/json-schema inside; 'vitest' replaced by the shim) that exports `run()`.
// The test file is imported lazily inside `run()`, so esbuild wraps its top level in a
// function: on workerd that code then runs inside a request, where crypto and timers work.
import { basename, join, relative, resolve } from 'node:path';
import { build } from 'esbuild';

const here = import.meta.dirname;

export type Bundle = { file: string; module: string };

export async function bundleTests(
  root: string,
  files: string[],
  outDir: string,
): Promise<Bundle[]> {
  return Promise.all(
    files.map(async (path, index) => {
      const file = relative(root, path);
      const module = `${index}-${basename(path, '.ts')}.mjs`;
      await build({
        stdin: {
          contents: [
            `import { runFile } from ${JSON.stringify(join(here, 'suite.ts'))};`,
            `export const run = () => runFile(${JSON.stringify(file)}, () => import(${JSON.stringify(resolve(path))}));`,
          ].join('\n'),
          resolveDir: root,
          sourcefile: `${file}.entry.ts`,
          loader: 'ts',
        },
        outfile: join(outDir, module),
        bundle: true,
        format: 'esm',
        platform: 'neutral',
        target: 'es2022',
        mainFields: ['module', 'main'],
        alias: { vitest: join(here, 'vitest-shim.ts') },
        logLevel: 'error',
      });
      return { file, module };
    }),
  );
}

// The module a runtime executes: runs every bundle in turn, prints its report, exits.
export function mainModule(runtime: string, bundles: Bundle[], exit: string): string {
  return [
    `import { report } from './report.mjs';`,
    ...bundles.map((bundle, i) => `import { run as run${i} } from './${bundle.module}';`),
    `const results = [];`,
    ...bundles.map((_, i) => `results.push(await run${i}());`),
    `const totals = report(${JSON.stringify(runtime)}, results, (line) => console.log(line));`,
    exit,
  ].join('\n');
}

export async function bundleReport(outDir: string): Promise<void> {
  await build({
    entryPoints: [join(here, 'report.ts')],
    outfile: join(outDir, 'report.mjs'),
    bundle: true,
    format: 'esm',
    platform: 'neutral',
    target: 'es2022',
    logLevel: 'error',
  });
}
