// The four runtimes of the matrix. Each runs the bundled test files and answers its
// printed output plus totals; a crash, a hang or a missing closing line counts as a failure.
import { spawn, spawnSync } from 'node:child_process';
import { accessSync, constants, readFileSync, writeFileSync } from 'node:fs';
import { delimiter, join, sep } from 'node:path';
import { Miniflare } from 'miniflare';
import { type Bundle, mainModule } from './bundle.ts';
import { closingLine, report, type Totals } from './report.ts';
import type { FileResult } from './suite.ts';

export type RuntimeResult = { output: string; totals: Totals | undefined };
export type Runtime = { name: string; run(dir: string, bundles: Bundle[]): Promise<RuntimeResult> };

const RUNTIME_TIMEOUT_MS = 120_000;

export function runtimes(root: string): Runtime[] {
  const bin = (name: string) => join(root, 'node_modules', '.bin', name);
  const exit = (call: string) => `${call}(totals.failed > 0 || totals.passed === 0 ? 1 : 0);`;
  return [
    processRuntime('node20', () => [systemNode20()], exit('process.exit')),
    processRuntime('bun', () => [bin('bun'), 'run'], exit('process.exit')),
    // No permission flags: the kit's portable tests need no file, env or network access
    // beyond importing their own modules, and --no-prompt turns any other request into an error.
    processRuntime(
      'deno',
      () => [bin('deno'), 'run', '--no-prompt', '--no-config', '--no-lock'],
      exit('Deno.exit'),
    ),
    { name: 'workerd', run: runWorkerd },
  ];
}

function processRuntime(name: string, command: () => string[], exit: string): Runtime {
  return {
    name,
    async run(dir, bundles) {
      const main = `main-${name}.mjs`;
      writeFileSync(join(dir, main), mainModule(name, bundles, exit));
      const [file, ...args] = command();
      const output = await spawnCollect(file!, [...args, main], dir);
      return { output, totals: closingLine(name, output) };
    },
  };
}

// The first `node` on PATH outside any node_modules/.bin, which must be Node 20.
export function systemNode20(): string {
  for (const dir of (process.env.PATH ?? '').split(delimiter)) {
    if (dir === '' || dir.split(sep).join('/').includes('node_modules/.bin')) continue;
    const candidate = join(dir, 'node');
    try {
      accessSync(candidate, constants.X_OK);
    } catch {
      continue;
    }
    const version = spawnSync(candidate, ['--version'], { encoding: 'utf8' }).stdout.trim();
    if (!version.startsWith('v20.')) {
      throw new Error(`the system node ${candidate} is ${version}, the matrix needs Node 20`);
    }
    return candidate;
  }
  throw new Error('no system node on PATH outside node_modules/.bin (the matrix needs Node 20)');
}

function spawnCollect(file: string, args: string[], cwd: string): Promise<string> {
  return new Promise((resolve) => {
    const child = spawn(file, args, {
      cwd,
      env: {
        PATH: process.env.PATH,
        HOME: process.env.HOME,
        NO_COLOR: '1',
        DENO_NO_UPDATE_CHECK: '1',
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let output = '';
    const collect = (chunk: Buffer) => {
      output += chunk.toString('utf8');
    };
    child.stdout.on('data', collect);
    child.stderr.on('data', collect);
    const timer = setTimeout(() => {
      output += `\n(killed after ${RUNTIME_TIMEOUT_MS} ms)\n`;
      child.kill('SIGKILL');
    }, RUNTIME_TIMEOUT_MS);
    child.on('error', (error) => {
      output += `\n(could not start ${file}: ${error.message})\n`;
    });
    child.on('close', (code, signal) => {
      clearTimeout(timer);
      if (code !== 0) output += `(exited with ${signal ?? code})\n`;
      resolve(output);
    });
  });
}

// workerd through miniflare: a module worker whose fetch runs every bundle and answers
// the results as JSON. No compatibility flags: the kit must not need nodejs_compat.
async function runWorkerd(dir: string, bundles: Bundle[]): Promise<RuntimeResult> {
  const worker = [
    ...bundles.map((bundle, i) => `import { run as run${i} } from './${bundle.module}';`),
    'export default {',
    '  async fetch() {',
    '    const results = [];',
    ...bundles.map((_, i) => `    results.push(await run${i}());`),
    '    return Response.json(results);',
    '  },',
    '};',
  ].join('\n');
  const modules = [
    { type: 'ESModule' as const, path: join(dir, 'worker.mjs'), contents: worker },
    ...bundles.map((bundle) => ({
      type: 'ESModule' as const,
      path: join(dir, bundle.module),
      contents: readFileSync(join(dir, bundle.module), 'utf8'),
    })),
  ];
  const lines: string[] = [];
  const mf = new Miniflare({ modules, modulesRoot: dir, compatibilityDate: '2026-04-01' });
  try {
    await mf.ready;
    const response = await mf.dispatchFetch('http://127.0.0.1/', {
      signal: AbortSignal.timeout(RUNTIME_TIMEOUT_MS),
    });
    const body = await response.text();
    if (!response.ok)
      throw new Error(`the worker answered ${response.status}: ${body.slice(0, 2000)}`);
    const totals = report('workerd', JSON.parse(body) as FileResult[], (line) => lines.push(line));
    return { output: `${lines.join('\n')}\n`, totals };
  } catch (error) {
    return {
      output: `workerd could not run the suite: ${(error as Error).message}\n`,
      totals: undefined,
    };
  } finally {
    await mf.dispose();
  }
}
