/**
 * `spawnDaemon` runs the daemon's bundle (`src/lifecycle/daemon-bundle.ts`): one file of its own
 * code, its dependencies from node_modules, each file's `import.meta.url` its source's. What the
 * daemon finds beside its sources must still be found: its version from its `package.json`, the
 * broker's entry that runs a node, the compile cache in the home.
 */
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { DAEMON_VERSION, spawnDaemon } from '../src/index.ts';
import { bash, createNode, isFinal, scripted, submit, waitForNode } from './broker-fixtures.ts';
import { daemonProcesses, json, socketFetch } from './helpers.ts';

const { newHome, pids } = daemonProcesses();

describe('the spawned daemon', () => {
  it('runs its bundle, which finds its version, its brokers and its compile cache', async () => {
    const home = newHome();
    const { pid, socketPath } = await spawnDaemon({ home, brokers: 1 });
    pids.push(pid);
    const cmdline = readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0');
    expect(cmdline.some((arg) => arg.endsWith('/packages/daemon/dist/daemon/main.mjs'))).toBe(true);
    const call = socketFetch(socketPath, readFileSync(join(home, 'owner.token'), 'utf8').trim());
    const status = (await (await call('/v1/status')).json()) as { version: string };
    expect(status.version).toBe(DAEMON_VERSION);
    const node = await createNode(call, {
      task: 'run on a broker of the bundled daemon',
      model: scripted('bundled', [bash('echo ok'), submit({ ok: true })]),
    });
    expect((await waitForNode(call, node.id, isFinal)).state).toBe('done');
    expect(existsSync(join(home, 'cache', 'node'))).toBe(true);
    expect((await call('/v1/shutdown', json({}))).status).toBe(200);
  });
});
