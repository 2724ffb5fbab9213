import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { promisify } from 'node:util';
import { build } from 'esbuild';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { json, ScriptedServer } from './helpers/server.ts';

const root = resolve(import.meta.dirname, '../../..');
const dir = mkdtempSync(join(tmpdir(), 'svc-client-portable-'));
const server = new ScriptedServer();
let baseUrl: string;
let bundle: string;

beforeAll(async () => {
  baseUrl = await server.listen();
  // platform "browser" fails the build if the main entry reaches any `node:` module.
  const result = await build({
    entryPoints: [resolve(import.meta.dirname, '../src/index.ts')],
    bundle: true,
    format: 'esm',
    platform: 'browser',
    write: false,
    logLevel: 'silent',
  });
  bundle = result.outputFiles[0]!.text;
  writeFileSync(join(dir, 'client.mjs'), bundle);
  writeFileSync(
    join(dir, 'main.mjs'),
    `import { Svc } from './client.mjs';
const client = new Svc({ baseUrl: ${JSON.stringify(baseUrl)}, token: 'svc_owner_t' });
const status = await client.system.status();
const events = [];
for await (const event of client.events.stream({}, { maxRetries: 1 })) {
  events.push(event.seq);
  if (events.length === 2) break;
}
console.log(JSON.stringify({ status, events }));
`,
  );
});
afterAll(async () => {
  await server.close();
  rmSync(dir, { recursive: true, force: true });
});

describe('the main entry outside Node', () => {
  it('bundles for the browser without any node: module', () => {
    expect(bundle).not.toMatch(/from\s*["']node:/);
  });

  it.each([
    ['deno', ['run', '--no-prompt', '--no-config', '--no-lock', '--allow-net=127.0.0.1']],
    ['bun', ['run']],
  ])('calls, retries and resumes a stream on %s', async (runtime, args) => {
    server.reset((req, res, i) => {
      if (req.url === '/v1/status') return json(res, 200, { status: 'ready', via: 'x' });
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      const from = Number(req.headers['last-event-id'] ?? 0);
      // Drop the first stream connection a moment after its first event.
      if (i === 1) {
        res.write('retry: 10\nid: 1\ndata: {"seq":1}\n\n', () =>
          setTimeout(() => res.destroy(), 50),
        );
      } else {
        for (let seq = from + 1; seq <= 2; seq++) res.write(`id: ${seq}\ndata: {"seq":${seq}}\n\n`);
      }
    });
    const bin = join(root, 'node_modules', '.bin', runtime);
    const { stdout } = await promisify(execFile)(bin, [...args, 'main.mjs'], {
      cwd: dir,
      timeout: 15_000,
      env: { ...process.env, NO_COLOR: '1' },
    });
    expect(JSON.parse(stdout)).toEqual({ status: { status: 'ready', via: 'x' }, events: [1, 2] });
    expect(server.requests[2]?.headers['last-event-id']).toBe('1');
  });
});
