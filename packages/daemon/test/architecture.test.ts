/**
 * The house rules of packages/daemon/src (issue 24), read from the source itself: no import
 * circle, no import running from a lower floor to a higher one, no file over 400 lines, no
 * function over 150. Type-only and dynamic imports count as imports: a circle through a type
 * is still a circle a reader has to untangle.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';
import {
  backUpImports,
  circlesOf,
  importsOf,
  lineCount,
  longFunctions,
} from './architecture-rules.ts';

const SRC = join(import.meta.dirname, '../src');
const MAX_FILE_LINES = 400;
const MAX_FUNCTION_LINES = 150;

/**
 * The floors, lowest first; a file may import from its own floor and the ones below. A file's
 * floor is that of the first rule its path (relative to src/) matches; a folder no rule names
 * is a resource folder (`src/<resource>/`), so a new one needs no entry here.
 *
 * - ground: what every part may use and that uses nothing of the daemon's: errors, redaction,
 *   the version, the home, lock and logger, `withDeps`.
 * - store: the database and every resource's queries (`<resource>/store.ts`), which
 *   `store/index.ts` assembles; `ports.ts` names the store's row types, so it sits here too,
 *   and so does `access/` (scopes and the visibility rules), by which the stores filter rows.
 * - kernels: git worktrees (`worktrees/`), which the nodes, the sandbox and the supervisor share.
 * - model-access: the provider SDK calls, the model turn and its errors, below both the broker
 *   (a node's turns) and the services (`/v1/llm`).
 * - sandbox: confinement, used by the broker's tools, the supervisor and the bash route.
 * - http framework: the request path (auth, idempotency, SSE, input, errors, replies) and the
 *   listeners. It knows the route table and nothing of any resource: a resource's routes
 *   mount themselves on it, so it sits below them and takes narrow deps interfaces.
 * - resources: one folder per resource (routes, operations, service), and what is left of
 *   `services/` and of the route modules still in `http/` (every `http/` file not named in
 *   `HTTP_FRAMEWORK`) until they move into theirs.
 * - brokers: the broker process and the supervisor that runs it. They use the resources'
 *   operations (a file tool, a bash command, a plugin call, a worktree, a node token); the
 *   resources reach them only through the ports (`NodeRuntime`, `SupervisorHooks`), so no
 *   resource imports them.
 * - top: the assembly. `context.ts` (the whole daemon's `DaemonContext`, which nothing below
 *   imports), `http/app.ts` (every resource's routes), `startDaemon` and its parts.
 */
const FLOORS = [
  'ground',
  'store',
  'kernels',
  'model-access',
  'sandbox',
  'http framework',
  'resources',
  'brokers',
  'top',
] as const;
type Floor = (typeof FLOORS)[number];

const HTTP_FRAMEWORK = [
  'auth',
  'call',
  'cors',
  'errors',
  'host-guard',
  'idempotency',
  'input',
  'linger',
  'listener',
  'page',
  'replay-turns',
  'reply',
  'request-path',
  'request-target',
  'route',
  'sse',
  'sse-socket',
  'viewer-auth',
  'viewer-live',
  'viewer-pages',
  'viewer-rights',
  'viewer-static',
];

const RULES: readonly [RegExp, Floor][] = [
  [/^(index|main|daemon|context)\.ts$|^http\/app\.ts$|^lifecycle\/parts\//, 'top'],
  [/^(errors|redact|version|viewer-dist|fetch-read|with-deps)\.ts$|^lifecycle\//, 'ground'],
  [/^ports\.ts$|^access\/|^store\/|^[^/]+\/store(\.ts$|\/)/, 'store'],
  [/^worktrees\//, 'kernels'],
  [/^model-access\//, 'model-access'],
  [/^sandbox\//, 'sandbox'],
  [/^(broker|supervisor)\//, 'brokers'],
  [new RegExp(`^http/(${HTTP_FRAMEWORK.join('|')})\\.ts$|^listeners/`), 'http framework'],
];

export function floorOf(path: string): Floor {
  return RULES.find(([pattern]) => pattern.test(path))?.[1] ?? 'resources';
}

function rank(path: string): number {
  return FLOORS.indexOf(floorOf(path));
}

/**
 * Files other helpers are splitting into per-resource folders today (issue 24): over the size
 * limits until they land. The lead empties this list at merge; an entry that no longer breaks
 * a limit fails the test, so it cannot linger.
 */
const PENDING_SPLIT: readonly string[] = [];

/**
 * Imports still running back up (`from -> to`), each owned by a move in flight: the kernels the
 * broker, the sandbox and the supervisor share with the services (bash, files, worktrees, write
 * notes, plugin calls, tokens) until they get a floor of their own, and the route modules still
 * in `http/` that take the whole `DaemonContext`. Emptied at merge like `PENDING_SPLIT`, and
 * checked the same way: an entry that no longer runs back up fails.
 */
const PENDING_BACK_UP: readonly string[] = [];

interface SourceFile {
  path: string;
  text: string;
  ast: ts.SourceFile;
}

function sourceFiles(dir: string): SourceFile[] {
  return readdirSync(dir, { recursive: true, encoding: 'utf8' })
    .filter((name) => name.endsWith('.ts'))
    .sort()
    .map((name) => {
      const path = name.split('\\').join('/');
      const text = readFileSync(join(dir, name), 'utf8');
      return { path, text, ast: ts.createSourceFile(path, text, ts.ScriptTarget.Latest, true) };
    });
}

const files = sourceFiles(SRC);
const graph = new Map(files.map((file) => [file.path, importsOf(file)]));

describe('the daemon’s house (packages/daemon/src)', () => {
  it('has no import circle', () => {
    expect(circlesOf(graph)).toEqual([]);
  });

  it('has no import running from a lower floor to a higher one, beyond the pending ones', () => {
    const found = backUpImports(graph, rank);
    expect(found.filter((edge) => !PENDING_BACK_UP.includes(edge))).toEqual([]);
    expect(PENDING_BACK_UP.filter((edge) => !found.includes(edge))).toEqual([]);
  });

  it(`has no source file over ${MAX_FILE_LINES} lines, beyond the ones being split`, () => {
    const long = files
      .filter((file) => lineCount(file.text) > MAX_FILE_LINES)
      .map((file) => file.path);
    expect(long.filter((path) => !PENDING_SPLIT.includes(path))).toEqual([]);
  });

  it(`has no function over ${MAX_FUNCTION_LINES} lines, beyond the files being split`, () => {
    const long = files
      .filter((file) => !PENDING_SPLIT.includes(file.path))
      .flatMap((file) => longFunctions(file, MAX_FUNCTION_LINES));
    expect(long).toEqual([]);
  });

  it('lists as pending only files that still break a limit', () => {
    const stale = PENDING_SPLIT.filter((path) => {
      const file = files.find((f) => f.path === path);
      return (
        file === undefined ||
        (lineCount(file.text) <= MAX_FILE_LINES &&
          longFunctions(file, MAX_FUNCTION_LINES).length === 0)
      );
    });
    expect(stale).toEqual([]);
  });
});

describe('the house rules themselves', () => {
  const parse = (path: string, text: string) => ({
    path,
    ast: ts.createSourceFile(path, text, ts.ScriptTarget.Latest, true),
  });

  it('reads static, type-only, re-exported and dynamic imports, resolved from src/', () => {
    const file = parse(
      'http/app.ts',
      [
        "import { a } from './route.ts';",
        "import type { B } from '../context.ts';",
        "export { c } from '../store/index.ts';",
        "const d = await import('../daemon.ts');",
        "type E = import('../ports.ts').Principal;",
        "import { z } from 'zod';",
      ].join('\n'),
    );
    expect(importsOf(file).sort()).toEqual([
      'context.ts',
      'daemon.ts',
      'http/route.ts',
      'ports.ts',
      'store/index.ts',
    ]);
  });

  it('finds a circle, a file importing itself, and no circle where there is none', () => {
    const circle = new Map([
      ['http/app.ts', ['connect/routes.ts']],
      ['connect/routes.ts', ['listeners/tcp.ts']],
      ['listeners/tcp.ts', ['http/app.ts', 'ports.ts']],
      ['ports.ts', []],
      ['self.ts', ['self.ts']],
    ]);
    expect(circlesOf(circle)).toEqual([
      'connect/routes.ts > listeners/tcp.ts > http/app.ts > connect/routes.ts',
      'self.ts > self.ts',
    ]);
    expect(
      circlesOf(
        new Map([
          ['a.ts', ['b.ts']],
          ['b.ts', []],
        ]),
      ),
    ).toEqual([]);
  });

  it('puts each file on its floor and finds an import running back up', () => {
    expect(floorOf('errors.ts')).toBe('ground');
    expect(floorOf('ports.ts')).toBe('store');
    expect(floorOf('models/store.ts')).toBe('store');
    expect(floorOf('nodes/store/rows.ts')).toBe('store');
    expect(floorOf('model-access/model-turn.ts')).toBe('model-access');
    expect(floorOf('http/request-path.ts')).toBe('http framework');
    expect(floorOf('http/nodes.ts')).toBe('resources');
    expect(floorOf('models/service.ts')).toBe('resources');
    expect(floorOf('lifecycle/parts/clock.ts')).toBe('top');
    expect(floorOf('lifecycle/logger.ts')).toBe('ground');
    expect(floorOf('access/visibility.ts')).toBe('store');
    expect(floorOf('worktrees/git-worktree.ts')).toBe('kernels');
    expect(floorOf('broker/agent-loop.ts')).toBe('brokers');
    const graphUp = new Map([
      ['broker/agent-loop.ts', ['model-access/model-turn.ts', 'files/read.ts']],
      ['nodes/create.ts', ['broker/tools/submit.ts']],
      ['http/sse.ts', ['context.ts']],
      ['model-access/model-turn.ts', []],
    ]);
    expect(backUpImports(graphUp, rank)).toEqual([
      'http/sse.ts -> context.ts',
      'nodes/create.ts -> broker/tools/submit.ts',
    ]);
  });

  it('measures a function from its first line to its last, arrows and methods included', () => {
    const body = Array.from({ length: 6 }, (_, i) => `  const v${i} = ${i};`).join('\n');
    const file = parse(
      'x.ts',
      `export function long() {\n${body}\n}\nconst arrow = () => {\n${body}\n};\nconst short = () => 1;\nclass K {\n  m() {\n${body}\n  }\n}\n`,
    );
    expect(longFunctions(file, 7)).toEqual([
      'x.ts:1 (8 lines)',
      'x.ts:9 (8 lines)',
      'x.ts:19 (8 lines)',
    ]);
    expect(longFunctions(file, 8)).toEqual([]);
  });
});
