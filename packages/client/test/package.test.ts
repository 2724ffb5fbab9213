// The client as an application gets it: @svc/client and @svc/protocol built by `npm run build`
// (JS + .d.ts, DESIGN §2), copied into another project's node_modules, and used from plain
// Node 20 and 24 (neither strips types there): over TCP with a token, and over the local
// daemon's socket with the owner token from its home.
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { node20OrSkip, type Project, projectWith } from '../../../test/support/built-packages.ts';

let project: Project;

beforeAll(() => {
  project = projectWith([
    { dir: 'packages/protocol', name: '@svc/protocol' },
    { dir: 'packages/client', name: '@svc/client' },
  ]);
  project.write('main.js', MAIN);
}, 60_000);

afterAll(() => project?.remove());

describe('the built client', () => {
  it('depends on the published protocol package, and exports built files only', () => {
    const manifest = JSON.parse(
      readFileSync(join(project.dir, 'node_modules/@svc/client/package.json'), 'utf8'),
    );
    expect(manifest.private).toBeUndefined();
    expect(manifest.dependencies['@svc/protocol']).toBe('0.1.0');
    expect(manifest.exports['./node']).toEqual({ types: './node.d.ts', default: './node.js' });
    // undici's floor: its 8.x wants Node 22.19 and failed on import under Node 20.
    expect(manifest.engines).toEqual({ node: '>=20.18.1' });
  });

  for (const [name, node] of [
    ['Node 24', process.execPath],
    ['Node 20, the system node', node20OrSkip()],
  ] as const) {
    it.skipIf(node === null)(`runs under ${name} from node_modules`, () => {
      const run = spawnSync(node ?? '', ['main.js'], { cwd: project.dir, encoding: 'utf8' });
      expect(run.stderr).toBe('');
      expect(JSON.parse(run.stdout)).toEqual({
        tcp: { url: '/v1/status', authorization: 'Bearer svc_app_token' },
        socket: { url: '/v1/status', authorization: 'Bearer svc_owner_local' },
        idCheck: 'TypeError',
      });
    });
  }
});

const MAIN = `
import { mkdtempSync, writeFileSync, rmSync } from 'node:fs';
import { createServer } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Svc } from '@svc/client';
import { createLocalClient } from '@svc/client/node';

const echo = (req, res) => {
  res.writeHead(200, { 'content-type': 'application/json' });
  res.end(JSON.stringify({ url: req.url, authorization: req.headers.authorization }));
};
const listen = (server, ...at) => new Promise((resolve) => server.listen(...at, resolve));

const tcp = createServer(echo);
await listen(tcp, 0, '127.0.0.1');
const client = new Svc({ baseUrl: 'http://127.0.0.1:' + tcp.address().port, token: 'svc_app_token' });

const home = mkdtempSync(join(tmpdir(), 'svc-home-'));
writeFileSync(join(home, 'owner.token'), 'svc_owner_local\\n', { mode: 0o600 });
const socket = createServer(echo);
await listen(socket, join(home, 'daemon.sock'));
const local = createLocalClient({ home });

let idCheck;
try {
  await client.nodes.retrieve('not a node id');
} catch (error) {
  idCheck = error.constructor.name;
}
console.log(
  JSON.stringify({ tcp: await client.system.status(), socket: await local.system.status(), idCheck }),
);
tcp.close();
socket.close();
rmSync(home, { recursive: true, force: true });
process.exit(0);
`;
