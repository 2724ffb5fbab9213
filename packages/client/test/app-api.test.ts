/**
 * `client.uploads`, `client.attachments`, `client.shares` and `client.questions` as an app uses
 * them: over the daemon's TCP listener (the app listener) with an app token, against a real
 * daemon whose brokers run the scripted model; and their local id checks.
 */
import { mkdirSync, mkdtempSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type DaemonHandle, startDaemon } from '@svc/daemon';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import {
  ConflictError,
  createLocalClient,
  NotFoundError,
  PayloadTooLargeError,
  PermissionDeniedError,
  type Question,
  Svc,
} from '../src/node.ts';

let home: string;
let work: string;
let daemon: DaemonHandle;
let owner: Svc;
let app: Svc;

beforeAll(async () => {
  home = mkdtempSync(join(tmpdir(), 'svc-capp-'));
  work = realpathSync(mkdtempSync(join(tmpdir(), 'svc-capp-w-')));
  mkdirSync(join(work, 'shared'));
  writeFileSync(join(work, 'shared', 'hello.txt'), 'hello from the host');
  daemon = await startDaemon({ home, logLevel: 'warn', brokers: { concurrency: 1 } });
  owner = createLocalClient({ home, maxRetries: 0 });
  const connection = await owner.request<{ base_url: string; token: string }>(
    'POST',
    '/v1/connect',
    { app_id: 'notes', scopes: ['svc:llm', 'svc:act'] },
  );
  app = new Svc({ baseUrl: connection.base_url, token: connection.token, maxRetries: 0 });
});
afterAll(async () => {
  await daemon.close();
  rmSync(home, { recursive: true, force: true });
  rmSync(work, { recursive: true, force: true });
});

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe('client.uploads and client.attachments', () => {
  it('uploads a file and links it; the link serves the bytes without a bearer', async () => {
    const bytes = Buffer.from('a,b\n1,2\n');
    const upload = await app.uploads.create({
      filename: 'table.csv',
      media_type: 'text/csv',
      content_base64: bytes.toString('base64'),
    });
    expect(upload).toMatchObject({ filename: 'table.csv', size: bytes.length, app_id: 'notes' });
    // Retrieve and delete have no method: client.request reaches them.
    await expect(app.request('GET', `/v1/uploads/${upload.id}`)).resolves.toEqual(upload);

    const link = await app.attachments.link({ upload_id: upload.id, ttl_s: 60 });
    expect(Date.parse(link.expires_at) - Date.now()).toBeLessThanOrEqual(60_000);
    const res = await fetch(link.url);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-disposition')).toMatch(/^attachment; filename="table.csv"/);
    expect(Buffer.from(await res.arrayBuffer())).toEqual(bytes);

    await app.request('DELETE', `/v1/uploads/${upload.id}`);
    expect((await fetch(link.url)).status).toBe(404);
    await expect(app.attachments.link({ upload_id: upload.id })).rejects.toBeInstanceOf(
      NotFoundError,
    );
  });

  it('over 1 MiB is a PayloadTooLargeError naming the field', async () => {
    const error = await app.uploads
      .create({
        filename: 'big.bin',
        content_base64: Buffer.alloc(1024 * 1024 + 1).toString('base64'),
      })
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(PayloadTooLargeError);
    expect((error as PayloadTooLargeError).field).toBe('content_base64');
  });
});

describe('client.shares', () => {
  it('the owner shares a path; the app reads it through client.files until the share ends', async () => {
    const path = join(work, 'shared', 'hello.txt');
    await expect(app.files.read({ path })).rejects.toBeInstanceOf(PermissionDeniedError);
    const share = await owner.shares.create({
      app_id: 'notes',
      path: join(work, 'shared'),
      mode: 'read',
    });
    expect(share).toMatchObject({ app_id: 'notes', mode: 'read', created_by: null });
    await expect(app.files.read({ path })).resolves.toMatchObject({
      content: 'hello from the host',
    });
    const mine = await app.shares.list();
    expect(mine.data.map((s) => s.id)).toEqual([share.id]);
    await expect(owner.shares.list({ app_id: 'other' })).resolves.toMatchObject({ data: [] });
    // The app it was made to sees it but cannot end it; the owner can.
    await expect(app.shares.delete(share.id)).rejects.toBeInstanceOf(PermissionDeniedError);
    await expect(owner.shares.delete(share.id)).resolves.toEqual({ id: share.id, deleted: true });
    await expect(app.files.read({ path })).rejects.toBeInstanceOf(PermissionDeniedError);
  });

  it('an app without svc:files:share cannot share', async () => {
    const error = await app.shares
      .create({ app_id: 'notes', path: work, mode: 'read' })
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(PermissionDeniedError);
    expect((error as PermissionDeniedError).code).toBe('scope_missing');
  });
});

describe('client.questions', () => {
  it('finds the question in the run’s events, answers it, and the run finishes', async () => {
    const run = await app.runs.start({
      task: 'ask which colour, then finish',
      model: {
        provider: 'scripted',
        model: 'asker',
        script: [
          {
            tool_calls: [
              {
                name: 'ask_human',
                input: { title: 'Colour?', body: '', options: ['red', 'blue'] },
              },
            ],
          },
          { tool_calls: [{ name: 'submit', input: { result: { ok: true } } }] },
        ],
      },
    });
    let questionId: string | undefined;
    const deadline = Date.now() + 15_000;
    while (questionId === undefined && Date.now() < deadline) {
      const page = await app.runs.events(run.id, { kinds: 'run.question' });
      questionId = (page.data[0]?.payload as { question_id?: string } | undefined)?.question_id;
      if (questionId === undefined) await sleep(25);
    }
    expect(questionId).toMatch(/^q_/);
    const question: Question = await app.questions.get(questionId!);
    expect(question).toMatchObject({ run_id: run.id, title: 'Colour?', state: 'open' });
    const answered = await app.questions.answer(questionId!, { choice: 'blue' });
    expect(answered).toMatchObject({ state: 'answered', answer: { choice: 'blue' } });
    await expect(app.questions.answer(questionId!, { choice: 'red' })).rejects.toBeInstanceOf(
      ConflictError,
    );
    const final = await app.runs.wait(run.id, { timeout_s: 15 });
    expect(final).toMatchObject({ final: true, run: { state: 'done' } });
  });
});

describe('identifier checks', () => {
  it('a malformed upl_, shr_ or q_ id is a TypeError, and nothing is sent', () => {
    const fetch = vi.fn();
    const offline = new Svc({ baseUrl: 'http://127.0.0.1:9', token: 't', fetch });
    for (const bad of ['nd_01ARZ3NDEKTSV4RRFFQ69G5FAV', 'upl_short', '', 42]) {
      expect(() => offline.attachments.link({ upload_id: bad as string })).toThrow(
        /params\.upload_id must be a upload id/,
      );
    }
    for (const bad of ['upl_01ARZ3NDEKTSV4RRFFQ69G5FAV', 'shr_x', '']) {
      expect(() => offline.shares.delete(bad)).toThrow(/shareId must be a share id/);
    }
    for (const bad of ['hr_01ARZ3NDEKTSV4RRFFQ69G5FAV', 'q_', 'q_../x']) {
      expect(() => offline.questions.get(bad)).toThrow(/questionId must be a question id/);
      expect(() => offline.questions.answer(bad, { text: 'x' })).toThrow(TypeError);
    }
    expect(fetch).not.toHaveBeenCalled();
  });
});
