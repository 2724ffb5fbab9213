/**
 * What the daemon's, the broker's and the CLI's bundles share (`lifecycle/node-bundle.ts`): a
 * bundle's `node:http` comes without the ES module facade that loads Node's own undici, every
 * name of it still there, and the files a bundle was built from are files.
 */
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { build } from 'esbuild';
import { afterAll, describe, expect, it } from 'vitest';
import { inputFiles, nodeBundleOptions } from '../src/lifecycle/node-bundle.ts';

const dir = mkdtempSync(join(tmpdir(), 'svc-node-bundle-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** Whether Node's undici is loaded once the entry's imports are: it prints `loaded:<bool>`. */
const ENTRY = `import http, { createServer, STATUS_CODES } from 'node:http';
const loaded = process.moduleLoadList.some((m) => m.includes('deps/undici'));
const server = createServer();
console.log(\`\${typeof http.request} \${STATUS_CODES[404]} \${typeof server.listen} loaded:\${loaded}\`);
`;

describe('nodeBundleOptions', () => {
  it("leaves Node's undici unloaded by an import of node:http", async () => {
    const entry = join(dir, 'entry.ts');
    writeFileSync(entry, ENTRY);
    const outfile = join(dir, 'out.mjs');
    const result = await build(nodeBundleOptions({ entryPoints: [entry], outfile }));
    const run = spawnSync(process.execPath, [outfile], { encoding: 'utf8', timeout: 20_000 });
    expect(run.stderr).toBe('');
    expect(run.stdout).toBe('function Not Found function loaded:false\n');
    // The same entry as Node runs it: the facade loads undici (what the bundle spares).
    const plain = spawnSync(process.execPath, [entry], { encoding: 'utf8', timeout: 20_000 });
    expect(plain.stdout).toBe('function Not Found function loaded:true\n');
    const inputs = inputFiles(result.metafile, process.cwd());
    expect(inputs).toEqual([entry]);
    expect(inputs.every((file) => existsSync(file))).toBe(true);
  });
});
