/**
 * `/v1/focuses` has no client method (SPEC "Routes without a client method"): `client.request`
 * reaches it against a real daemon, and its errors map to the usual classes.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { type DaemonHandle, startDaemon } from '@svc/daemon';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  createLocalClient,
  NotFoundError,
  PermissionDeniedError,
  Svc,
  UnprocessableEntityError,
} from '../src/node.ts';

const MODEL = { provider: 'scripted' as const, model: 'replay', script: [{ text: 'done' }] };
/** One broker slot, held by an idle stand-in: the nodes made here stay queued. */
const IDLE_BROKER = fileURLToPath(
  new URL('../../daemon/test/fixtures/idle-broker.ts', import.meta.url),
);

interface Focus {
  node_id: string;
  pane: string;
  created_at: string;
  updated_at: string;
}

let home: string;
let daemon: DaemonHandle;
let owner: Svc;

beforeAll(async () => {
  home = mkdtempSync(join(tmpdir(), 'svc-cfo-'));
  daemon = await startDaemon({
    home,
    logLevel: 'warn',
    brokers: { concurrency: 1, entry: IDLE_BROKER },
  });
  owner = createLocalClient({ home, maxRetries: 0 });
});
afterAll(async () => {
  await daemon.close();
  rmSync(home, { recursive: true, force: true });
});

describe('focuses through client.request', () => {
  it('sets, replaces, lists, retrieves and deletes a focus', async () => {
    const node = await owner.nodes.create({ task: 'shown in a pane', model: MODEL });
    const path = `/v1/focuses/${node.id}`;
    const set = await owner.request<Focus>('PUT', path, { pane: '%12' });
    expect(set).toMatchObject({ node_id: node.id, pane: '%12' });
    const moved = await owner.request<Focus>('PUT', path, { pane: 'main:1.2' });
    expect(moved).toMatchObject({ pane: 'main:1.2', created_at: set.created_at });
    await expect(owner.request('GET', path)).resolves.toEqual(moved);
    const page = await owner.request<{ data: Focus[]; has_more: boolean }>(
      'GET',
      '/v1/focuses?pane=main:1.2&limit=10',
    );
    expect(page).toEqual({ data: [moved], has_more: false, next_cursor: null });
    await expect(owner.request('DELETE', path)).resolves.toEqual({
      node_id: node.id,
      deleted: true,
    });
    const gone = await owner.request('GET', path).catch((e: unknown) => e);
    expect(gone).toBeInstanceOf(NotFoundError);
    expect(gone).toMatchObject({ status: 404, code: 'not_found', field: 'node_id' });
  });

  it('maps a bad pane to UnprocessableEntityError and a missing scope to PermissionDeniedError', async () => {
    const node = await owner.nodes.create({ task: 'checked', model: MODEL });
    const bad = await owner
      .request('PUT', `/v1/focuses/${node.id}`, { pane: 'has space' })
      .catch((e: unknown) => e);
    expect(bad).toBeInstanceOf(UnprocessableEntityError);
    expect(bad).toMatchObject({ code: 'validation_failed', field: 'pane' });

    await daemon.enableTcp();
    const connection = await owner.request<{ base_url: string; token: string }>(
      'POST',
      '/v1/connect',
      { app_id: 'viewer-app', scopes: ['svc:llm'] },
    );
    const app = new Svc({ baseUrl: connection.base_url, token: connection.token, maxRetries: 0 });
    const denied = await app
      .request('PUT', `/v1/focuses/${node.id}`, { pane: '%1' })
      .catch((e: unknown) => e);
    expect(denied).toBeInstanceOf(PermissionDeniedError);
    expect(denied).toMatchObject({ code: 'scope_missing', field: 'svc:act' });
    // The owner's node is not the app's to see.
    const unseen = await app.request('GET', `/v1/focuses/${node.id}`).catch((e: unknown) => e);
    expect(unseen).toBeInstanceOf(NotFoundError);
  });
});
