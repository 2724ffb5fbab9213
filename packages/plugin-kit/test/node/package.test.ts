/// <reference types="node" />
// The kit as a plugin author gets it: built by `npm run build` (JS + .d.ts, DESIGN §2), copied
// into another project's node_modules, imported by plain Node 20 and 24 (neither strips types
// there) and type-checked by a consumer under strict TypeScript.
import { spawnSync } from 'node:child_process';
import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildPackage } from '../../../../scripts/build-package.ts';
import {
  node20OrSkip,
  type Project,
  projectWith,
  repoRoot,
} from '../../../../test/support/built-packages.ts';

let project: Project;

beforeAll(() => {
  project = projectWith([{ dir: 'packages/plugin-kit', name: '@svc/plugin-kit' }]);
  project.write('main.js', MAIN);
  project.write('consumer.ts', CONSUMER);
  project.write('tsconfig.json', JSON.stringify(CONSUMER_TSCONFIG));
}, 60_000);

afterAll(() => project?.remove());

describe('the built package', () => {
  it('has a manifest whose exports name built files only, and nothing of the workspace', () => {
    const manifest = JSON.parse(
      readFileSync(join(project.dir, 'node_modules/@svc/plugin-kit/package.json'), 'utf8'),
    );
    expect(manifest.private).toBeUndefined();
    expect(manifest.devDependencies).toBeUndefined();
    expect(Object.keys(manifest.dependencies).sort()).toEqual(['@cfworker/json-schema', 'jose']);
    expect(manifest.exports['.']).toEqual({ types: './index.d.ts', default: './index.js' });
    expect(manifest.exports['./testing']).toEqual({
      types: './testing/index.d.ts',
      default: './testing/index.js',
    });
    expect(manifest.exports['./json-schema']).toEqual({
      types: './json-schema.d.ts',
      default: './json-schema.js',
    });
    expect(JSON.stringify(manifest.exports)).not.toMatch(/(?<!\.d)\.ts"/);
    // what npm would pack: the README goes along, and nothing of the sources or tests
    const packed = spawnSync('npm', ['pack', '--dry-run', '--json'], {
      cwd: join(project.dir, 'node_modules/@svc/plugin-kit'),
      encoding: 'utf8',
    });
    const files: string[] = JSON.parse(packed.stdout)[0].files.map((f: { path: string }) => f.path);
    expect(files).toContain('README.md');
    expect(files).toContain('index.js');
    expect(files).toContain('testing/index.d.ts');
    expect(files.filter((f) => /(?<!\.d)\.ts$/.test(f))).toEqual([]);
  });

  for (const [name, node] of [
    ['Node 24', process.execPath],
    ['Node 20, the system node', node20OrSkip()],
  ] as const) {
    it.skipIf(node === null)(
      `runs under ${name} from node_modules: archive, directory token, command`,
      () => {
        const run = spawnSync(node ?? '', ['main.js'], { cwd: project.dir, encoding: 'utf8' });
        expect(run.stderr).toBe('');
        expect(JSON.parse(run.stdout)).toEqual({
          archive: [200, 'application/x-tar', 'acme'],
          command: [200, { id: 'T-1', title: 'Printer on fire', by: 'user_test' }],
          unauthorized: 401,
        });
      },
    );
  }

  it('refuses to build into the package itself or a folder holding it, which it would empty', () => {
    // A stand-in package in a scratch folder: if the guard ever failed, only that is emptied,
    // never the repo.
    const scratch = mkdtempSync(join(tmpdir(), 'svc-build-guard-'));
    try {
      const pkg = join(scratch, 'packages', 'kit');
      mkdirSync(pkg, { recursive: true });
      const manifest = readFileSync(join(repoRoot, 'packages', 'plugin-kit', 'package.json'));
      writeFileSync(join(pkg, 'package.json'), manifest);
      for (const out of [pkg, join(pkg, '..'), scratch]) {
        expect(() => buildPackage(pkg, out)).toThrow(/holds the package itself/);
      }
      expect(readFileSync(join(pkg, 'package.json'), 'utf8')).toContain('"@svc/plugin-kit"');
    } finally {
      rmSync(scratch, { recursive: true, force: true });
    }
  });

  it('type-checks a consumer against its .d.ts under strict settings', () => {
    const tsc = join(repoRoot, 'node_modules', 'typescript', 'bin', 'tsc');
    const check = spawnSync(process.execPath, [tsc, '-p', project.dir], { encoding: 'utf8' });
    expect(check.stdout + check.stderr).toBe('');
    expect(check.status).toBe(0);
  });

  it('type-checks in a Node project without the DOM library, its own .d.ts files included', () => {
    // Web Crypto's `CryptoKey` is a DOM type that @types/node declares otherwise (or, in its
    // older majors, not at all): the kit's declarations name jose's instead.
    const types = join(project.dir, 'node_modules', '@types');
    mkdirSync(types, { recursive: true });
    if (!existsSync(join(types, 'node'))) {
      symlinkSync(join(repoRoot, 'node_modules', '@types', 'node'), join(types, 'node'), 'dir');
    }
    project.write('tsconfig.node.json', JSON.stringify(NODE_TSCONFIG));
    const tsc = join(repoRoot, 'node_modules', 'typescript', 'bin', 'tsc');
    const check = spawnSync(
      process.execPath,
      [tsc, '-p', join(project.dir, 'tsconfig.node.json')],
      {
        encoding: 'utf8',
      },
    );
    expect(check.stdout + check.stderr).toBe('');
    expect(check.status).toBe(0);
  });
});

const MAIN = `
import { createFetchHandler, definePlugin } from '@svc/plugin-kit';
import { readTar } from '@svc/plugin-kit/archive';
import { createTestIssuer } from '@svc/plugin-kit/testing';

const issuer = await createTestIssuer();
const audience = 'http://127.0.0.1/plugins';
const acme = definePlugin({
  name: 'acme',
  description: 'Acme support tickets',
  groups: {
    tickets: {
      description: 'Support tickets',
      commands: {
        create: {
          description: 'Open a ticket',
          input: { type: 'object', properties: { title: { type: 'string' } }, required: ['title'] },
          handler: ({ title }, ctx) => ({ id: 'T-1', title, by: ctx.caller.sub }),
        },
      },
    },
  },
});
const handler = createFetchHandler(acme, {
  auth: { issuer: issuer.issuer, audience },
  jwks: { fetch: issuer.fetch },
});
const archive = await handler(new Request('http://127.0.0.1/plugins'));
const entries = readTar(new Uint8Array(await archive.arrayBuffer()));
const manifest = JSON.parse(new TextDecoder().decode(entries.find((e) => e.name === 'plugin.json').data));
const post = (token) =>
  handler(
    new Request('http://127.0.0.1/plugins/acme/tickets/create', {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        'svc-request-id': 'req-1',
        authorization: 'Bearer ' + token,
      },
      body: JSON.stringify({ title: 'Printer on fire' }),
    }),
  );
const command = await post(await issuer.mint({ aud: audience, scope: 'acme:tickets' }));
const stranger = await post('not-a-token');
console.log(
  JSON.stringify({
    archive: [archive.status, archive.headers.get('content-type'), manifest.name],
    command: [command.status, await command.json()],
    unauthorized: stranger.status,
  }),
);
`;

const CONSUMER = `
import { createFetchHandler, definePlugin, PluginError } from '@svc/plugin-kit';
import { createTestIssuer } from '@svc/plugin-kit/testing';

const plugin = definePlugin({
  name: 'acme',
  description: 'Acme',
  groups: {
    tickets: {
      description: 'Tickets',
      commands: {
        create: {
          description: 'Open a ticket',
          handler: async (input: { title: string }) => {
            if (input.title === '') throw new PluginError(422, 'validation_failed', 'empty');
            return { id: 'T-1', title: input.title };
          },
        },
      },
    },
  },
});
const handler: (request: Request) => Promise<Response> = createFetchHandler(plugin, { token: 't' });
// @ts-expect-error -- the types are the kit's, not \`any\`: an option it does not have is an error
createFetchHandler(plugin, { tokne: 't' });
const issuer = await createTestIssuer();
const token: Promise<string> = issuer.mint({ aud: 'https://x', scope: 'acme:tickets' });
const before = issuer.privateKey;
await issuer.rotate();
const old: Promise<string> = issuer.mint({ aud: 'https://x', scope: 'acme:tickets', signWith: before });
export { handler, old, token };
`;

const CONSUMER_TSCONFIG = {
  compilerOptions: {
    target: 'ES2023',
    lib: ['ES2023', 'DOM', 'DOM.Iterable', 'DOM.AsyncIterable'],
    module: 'NodeNext',
    moduleResolution: 'NodeNext',
    strict: true,
    exactOptionalPropertyTypes: true,
    noUncheckedIndexedAccess: true,
    types: [],
    noEmit: true,
  },
  files: ['consumer.ts'],
};

/** A Node-only project: no DOM library, Node's own types, every .d.ts checked. */
const NODE_TSCONFIG = {
  ...CONSUMER_TSCONFIG,
  compilerOptions: {
    ...CONSUMER_TSCONFIG.compilerOptions,
    lib: ['ES2023'],
    types: ['node'],
    skipLibCheck: false,
  },
};
