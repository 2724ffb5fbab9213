/**
 * What every bundle svc builds of itself shares (the daemon's, a broker's, the CLI's): esbuild's
 * options for one ES module run by this Node, and the plugin that leaves the workspace's sources
 * where they are. Loaded only when a bundle is built, by the CLI's `bin/bundle.js` too, which is
 * plain JavaScript: Node strips this file's types then, so its syntax stays erasable.
 */
import { readFileSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import type { BuildOptions, Metafile, Plugin } from 'esbuild';

const DEFAULTS = {
  bundle: true,
  platform: 'node',
  format: 'esm',
  target: `node${process.versions.node.split('.')[0]}`,
  // The inputs a bundle was built from: what its manifest stamps to tell when it is stale.
  metafile: true,
  logLevel: 'silent',
  // CommonJS dependencies inside an ES module still call `require` for node's built-ins.
  banner: {
    js: "import { createRequire as __svcRequire } from 'node:module'; const require = __svcRequire(import.meta.url);",
  },
} as const satisfies BuildOptions;

/**
 * `options` over the defaults of a bundle for this Node: one ES module, with its metafile, whose
 * `node:http` costs no more than the module itself (`httpWithoutFacade`).
 */
export function nodeBundleOptions<T extends BuildOptions>(options: T): typeof DEFAULTS & T {
  return { ...DEFAULTS, ...options, plugins: [httpWithoutFacade, ...(options.plugins ?? [])] };
}

/**
 * The files a bundle was built from, as absolute paths (`workDir` is its `absWorkingDir`): what
 * its manifest stamps. Modules made up by a plugin (`namespace:path`) are no file.
 */
export function inputFiles(metafile: Metafile, workDir: string): string[] {
  return Object.keys(metafile.inputs)
    .filter((input) => !input.startsWith(`${BUILTIN}:`))
    .map((input) => resolve(workDir, input));
}

const BUILTIN = 'svc-builtin';

/** What `node:http` defines on first use from Node's own undici (its WebSocket and events). */
const UNDICI_GETTERS = new Set(['WebSocket', 'CloseEvent', 'MessageEvent']);

/**
 * `import … from 'node:http'` as the module object's own properties. Node builds an ES module
 * of a built-in by reading every property, and three of `node:http`'s load Node's whole undici
 * on first read: about 50 ms of a start (a CLI command's, the daemon's) for what no one uses.
 * `process.getBuiltinModule` hands over the module without that; `require` calls keep theirs.
 */
const httpWithoutFacade: Plugin = {
  name: 'svc-http-without-facade',
  setup(b) {
    b.onResolve({ filter: /^(node:)?http$/ }, (args) =>
      args.kind === 'import-statement' || args.kind === 'dynamic-import'
        ? { path: 'node:http', namespace: BUILTIN }
        : undefined,
    );
    b.onLoad({ filter: /.*/, namespace: BUILTIN }, () => {
      const names = Object.keys(process.getBuiltinModule('node:http')).filter(
        (name) => !UNDICI_GETTERS.has(name),
      );
      return {
        contents: [
          "const http = process.getBuiltinModule('node:http');",
          'export default http;',
          `export const { ${names.join(', ')} } = http;`,
        ].join('\n'),
        loader: 'js',
      };
    });
  },
};

/**
 * Bundles the sources under `root` but leaves them as they are otherwise: a bare import there
 * (but of `@svc/…`, which is bundled) stays an import of the very file the sources load, their
 * package's own `node_modules` first, and each `.ts` file keeps its own `import.meta`, so what
 * it finds beside itself (an entry, a worker, the viewer, a `package.json`) is where it was.
 */
export function inPlace(root: string): Plugin {
  const under = `${root}/`;
  return {
    name: 'svc-in-place',
    setup(b) {
      b.onResolve({ filter: /^[^./]/ }, async (args) => {
        if (!args.importer.startsWith(under) || args.path.startsWith('@svc/')) return undefined;
        if (args.pluginData === 'in-place') return undefined;
        const found = await b.resolve(args.path, {
          kind: args.kind,
          importer: args.importer,
          resolveDir: args.resolveDir,
          pluginData: 'in-place',
        });
        return found.errors.length > 0 ? undefined : { path: found.path, external: true };
      });
      b.onLoad({ filter: /\.ts$/ }, async (args) => {
        if (!args.path.startsWith(under)) return undefined;
        const { code } = await b.esbuild.transform(readFileSync(args.path, 'utf8'), {
          loader: 'ts',
          format: 'esm',
          sourcefile: args.path,
          define: {
            'import.meta.url': JSON.stringify(pathToFileURL(args.path).href),
            'import.meta.dirname': JSON.stringify(dirname(args.path)),
            'import.meta.filename': JSON.stringify(args.path),
          },
        });
        return { contents: code, loader: 'js', resolveDir: dirname(args.path) };
      });
    },
  };
}
