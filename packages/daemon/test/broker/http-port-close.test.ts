/**
 * A closed broker port records nothing more: what a node dropped from its agent host relies on
 * (the host process lives on, so nothing else would stop its loop's late calls). A call in
 * flight is cut off, and a later one never reaches the daemon's socket.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer, type ServerResponse } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { createHttpBrokerPort } from '../../src/broker/http-port.ts';

const dir = mkdtempSync(join(tmpdir(), 'svc-port-'));
const socketPath = join(dir, 'd.sock');
const seen: string[] = [];
const held: ServerResponse[] = [];
const server = createServer((req, res) => {
  seen.push(req.url ?? '');
  held.push(res); // never answered: the call stays in flight
});
await new Promise<void>((resolve) => server.listen(socketPath, resolve));
afterAll(async () => {
  for (const res of held) res.destroy();
  await new Promise((resolve) => server.close(resolve));
  rmSync(dir, { recursive: true, force: true });
});

describe('a closed broker port', () => {
  it('cuts off its call in flight and sends no other', async () => {
    const port = createHttpBrokerPort({
      socketPath,
      nodeId: 'node_0123456789abcdef01234567',
      token: 'svc_node_test',
      cwd: dir,
    });
    const inFlight = port.claimMail();
    await new Promise<void>((resolve) => {
      const check = () => (seen.length === 1 ? resolve() : setImmediate(check));
      check();
    });
    await port.close();
    await expect(inFlight).rejects.toThrow();
    await expect(port.recordJob({ state: 'running', kind: 'bash', title: 'late' })).rejects.toThrow(
      /closed/,
    );
    // Refused before a request is made: the server saw the first call only.
    expect(seen).toHaveLength(1);
  });
});
