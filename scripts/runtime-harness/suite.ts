// Collects the tests one file declares and runs them in order, with vitest's hook order:
// `beforeAll` before a suite's first test, `beforeEach` outermost first, `afterEach`
// innermost first, `afterAll` after the suite's last test; a hook may return its own teardown.

export type Fn = () => unknown;
type Hooks = { beforeAll: Fn[]; afterAll: Fn[]; beforeEach: Fn[]; afterEach: Fn[] };
type Test = { kind: 'test'; name: string; fn: Fn; timeout: number };
type Suite = { kind: 'suite'; name: string; children: (Suite | Test)[]; hooks: Hooks };

export type Failure = { name: string; error: string };
export type FileResult = { file: string; passed: number; failed: number; failures: Failure[] };

// The same limits as the root vitest.config.ts.
const TEST_TIMEOUT_MS = 20_000;
const HOOK_TIMEOUT_MS = 30_000;

let current: Suite = newSuite('');

function newSuite(name: string): Suite {
  return {
    kind: 'suite',
    name,
    children: [],
    hooks: { beforeAll: [], afterAll: [], beforeEach: [], afterEach: [] },
  };
}

export function addSuite(name: string, body: Fn): void {
  const parent = current;
  const suite = newSuite(name);
  parent.children.push(suite);
  current = suite;
  try {
    if (body() instanceof Promise)
      throw new TypeError(`describe('${name}') must not be async here`);
  } finally {
    current = parent;
  }
}

export function addTest(name: string, fn: Fn, timeout = TEST_TIMEOUT_MS): void {
  current.children.push({ kind: 'test', name, fn, timeout });
}

export function addHook(kind: keyof Hooks, fn: Fn): void {
  current.hooks[kind].push(fn);
}

// Loads one test file (whose top level registers its tests) and runs what it registered.
export async function runFile(file: string, load: () => Promise<unknown>): Promise<FileResult> {
  const result: FileResult = { file, passed: 0, failed: 0, failures: [] };
  current = newSuite('');
  const root = current;
  try {
    await load();
  } catch (error) {
    record(result, `${file} (while loading)`, error);
    return result;
  }
  await runSuite(root, [], [], result);
  return result;
}

async function runSuite(
  suite: Suite,
  path: string[],
  each: Hooks[],
  result: FileResult,
): Promise<void> {
  const names = suite.name === '' ? path : [...path, suite.name];
  const chain = [...each, suite.hooks];
  const teardowns: Fn[] = [];
  const setup = await runHooks(suite.hooks.beforeAll, teardowns);
  if (setup !== undefined) {
    // A failed `beforeAll` fails every test below it, as in vitest.
    for (const test of tests(suite))
      record(result, [...names, test.name, '(beforeAll)'].join(' > '), setup);
  } else {
    for (const child of suite.children) {
      if (child.kind === 'suite') await runSuite(child, names, chain, result);
      else await runTest(child, [...names, child.name].join(' > '), chain, result);
    }
  }
  const teardown = await runHooks([...suite.hooks.afterAll, ...teardowns.reverse()], []);
  if (teardown !== undefined) record(result, [...names, '(afterAll)'].join(' > '), teardown);
}

async function runTest(
  test: Test,
  name: string,
  chain: Hooks[],
  result: FileResult,
): Promise<void> {
  const teardowns: Fn[] = [];
  let error = await runHooks(
    chain.flatMap((hooks) => hooks.beforeEach),
    teardowns,
  );
  if (error === undefined) error = await settle(test.fn, test.timeout, `test "${test.name}"`);
  const afterEach = [...chain].reverse().flatMap((hooks) => hooks.afterEach);
  const cleanup = await runHooks([...teardowns.reverse(), ...afterEach], []);
  error ??= cleanup;
  if (error === undefined) result.passed++;
  else record(result, name, error);
}

// Runs hooks in order and stops at the first failure, which it returns.
async function runHooks(hooks: Fn[], teardowns: Fn[]): Promise<unknown> {
  for (const hook of hooks) {
    let returned: unknown;
    const error = await settle(
      async () => {
        returned = await hook();
      },
      HOOK_TIMEOUT_MS,
      'hook',
    );
    if (error !== undefined) return error;
    if (typeof returned === 'function') teardowns.push(returned as Fn);
  }
  return undefined;
}

// Resolves to the error (or undefined), failing with a timeout rather than hanging.
async function settle(fn: Fn, timeoutMs: number, what: string): Promise<unknown> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const timeout = new Promise<Error>((resolve) => {
    timer = setTimeout(
      () => resolve(new Error(`${what} timed out after ${timeoutMs} ms`)),
      timeoutMs,
    );
  });
  try {
    return await Promise.race([
      (async () => {
        await fn();
        return undefined;
      })().catch((error: unknown) => error ?? new Error('threw undefined')),
      timeout,
    ]);
  } finally {
    clearTimeout(timer);
  }
}

function* tests(suite: Suite): Generator<Test> {
  for (const child of suite.children) {
    if (child.kind === 'test') yield child;
    else yield* tests(child);
  }
}

function record(result: FileResult, name: string, error: unknown): void {
  result.failed++;
  result.failures.push({ name, error: describeError(error) });
}

// An assertion's message says it all; for anything else a few frames help find the throw.
function describeError(error: unknown): string {
  if (!(error instanceof Error)) return String(error);
  const head = `${error.name}: ${error.message}`;
  if (error.name === 'AssertionError') return head;
  const frames = (error.stack ?? '').split('\n').filter((line) => /^\s+at /.test(line));
  return [head, ...frames.slice(0, 4).map((line) => line.trim())].join('\n');
}
