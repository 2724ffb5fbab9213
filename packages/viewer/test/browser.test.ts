/**
 * The viewer end to end in Debian's Chromium: a real daemon (TCP on 127.0.0.1) with nodes, a
 * human request and a cron; a one-time login link opened in the browser; the canvas, its live
 * updates, answering in the inbox and the crons list, all under the daemon's CSP.
 *
 * Chromium comes from `scripts/ensure-chromium.sh` (run by `npm test`). Without it the test fails
 * on CI (`CI=true`) and is skipped elsewhere, saying so.
 */
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { createLocalClient } from '@svc/client/node';
import { type DaemonHandle, startDaemon } from '@svc/daemon';
import { type Browser, chromium, type Page } from 'playwright-core';
import { build } from 'vite';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

const CHROMIUM = process.env.SVC_CHROMIUM ?? '/usr/bin/chromium';
const present = existsSync(CHROMIUM);
const onCi = process.env.CI === 'true';
if (!present && !onCi) {
  console.warn(
    `viewer browser test skipped: no Chromium at ${CHROMIUM} (run scripts/ensure-chromium.sh as root)`,
  );
}
const VIEWER = fileURLToPath(new URL('..', import.meta.url));

type Client = ReturnType<typeof createLocalClient>;
interface Node {
  id: string;
  state: string;
  waiting_on: { request_id?: string } | null;
}

const scripted = (script: unknown[]) => ({ provider: 'scripted', model: 'demo', script });
const submit = (result: unknown) => ({ tool_calls: [{ name: 'submit', input: { result } }] });
const askHuman = (title: string) => ({
  tool_calls: [{ name: 'ask_human', input: { title, body: 'v2 is ready', kind: 'approval' } }],
});

/** Polls `check` every 50 ms until it answers a value, for at most `ms`. */
async function until<T>(what: string, check: () => Promise<T | undefined>, ms = 10_000) {
  const deadline = Date.now() + ms;
  for (;;) {
    const value = await check();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

describe.skipIf(!present && !onCi)('the viewer in Chromium', () => {
  let home = '';
  let daemon: DaemonHandle | undefined;
  let client: Client;
  let browser: Browser | undefined;
  let page: Page;
  let base = '';
  const problems: string[] = [];
  const requested: { url: string; lastEventId: string | undefined }[] = [];
  const nodes: Record<'done' | 'waiting', Node> = {} as never;
  let request: { id: string; ticket_id: string };

  const createNode = (title: string, script: unknown[]) =>
    client.request('POST', '/v1/nodes', {
      task: title,
      title,
      model: scripted(script),
    }) as Promise<Node>;
  const getNode = (id: string) => client.request('GET', `/v1/nodes/${id}`) as Promise<Node>;

  beforeAll(async () => {
    if (!present) {
      throw new Error(`no Chromium at ${CHROMIUM}: run scripts/ensure-chromium.sh (npm test does)`);
    }
    home = mkdtempSync(join(tmpdir(), 'svc-viewer-'));
    // The current source, built where this test alone reads it: never a stale dist.
    const dist = join(home, 'viewer-dist');
    await build({
      root: VIEWER,
      configFile: join(VIEWER, 'vite.config.ts'),
      logLevel: 'warn',
      build: { outDir: dist, emptyOutDir: true },
    });
    daemon = await startDaemon({
      home,
      logLevel: 'warn',
      tcp: { host: '127.0.0.1', port: 0 },
      viewer: { dist },
      brokers: { concurrency: 4 },
    });
    base = daemon.tcp!.base_url;
    client = createLocalClient({ home });

    const done = await createNode('finishes at once', [submit({ ok: true })]);
    const waiting = await createNode('asks first', [askHuman('Deploy?'), submit({ ok: true })]);
    nodes.done = await until('a done node', async () => {
      const n = await getNode(done.id);
      return n.state === 'done' ? n : undefined;
    });
    nodes.waiting = await until('a waiting node', async () => {
      const n = await getNode(waiting.id);
      if (n.state === 'failed' || n.state === 'done') throw new Error(JSON.stringify(n));
      return n.state === 'waiting' ? n : undefined;
    });
    request = (await client.request('POST', '/v1/human/requests', {
      title: 'Which color?',
      body: 'for the logo',
      options: ['red', 'blue'],
    })) as { id: string; ticket_id: string };
    await client.request('POST', '/v1/crons', {
      name: 'weekday hello',
      schedule: '0 9 * * 1-5',
      task: { task: 'Say hello', model: scripted([submit({ hi: true })]) },
    });

    browser = await chromium.launch({
      executablePath: CHROMIUM,
      headless: true,
      // Root (CI containers) has no user namespace sandbox to give Chromium.
      args: process.getuid?.() === 0 ? ['--no-sandbox'] : [],
    });
    // A context of its own, so a second tab shares the first one's cookie and storage.
    page = await (await browser.newContext()).newPage();
    // A step that does not happen fails with what it waited for, well inside the test's time.
    page.setDefaultTimeout(8_000);
    page.on('console', (m) => {
      if (m.type() === 'error') problems.push(m.text());
    });
    page.on('pageerror', (e) => problems.push(e.message));
    page.on('request', (r) =>
      requested.push({ url: r.url(), lastEventId: r.headers()['last-event-id'] }),
    );
  }, 60_000);

  afterAll(async () => {
    await browser?.close();
    await daemon?.close();
    if (home !== '') rmSync(home, { recursive: true, force: true });
  });

  it('logs in with a one-time link and lands on /viewer/ with an HttpOnly cookie and the page key kept', async () => {
    const link = (await client.request('POST', '/v1/viewer/links', {})) as { url: string };
    const res = await page.goto(link.url);
    expect(res?.status()).toBe(200);
    // The key came in the fragment; the page kept it and took it out of the address bar.
    await expect.poll(() => page.url()).toBe(`${base}/viewer/#/`);
    const key = await page.evaluate(() => localStorage.getItem('svc-viewer-key'));
    expect(key).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(await page.evaluate(() => history.length)).toBeLessThanOrEqual(2);
    const cookies = await page.context().cookies(base);
    expect(cookies).toEqual([
      expect.objectContaining({
        name: `svc_viewer_${new URL(base).port}`,
        httpOnly: true,
        sameSite: 'Strict',
        path: '/',
      }),
    ]);
  });

  it('shows every node on the canvas with its state', async () => {
    for (const [state, node] of Object.entries(nodes)) {
      const item = page.locator(`li[data-node-id="${node.id}"]`);
      await item.waitFor();
      expect(await item.getAttribute('data-state')).toBe(state);
      await expect.poll(() => item.locator('.badge').first().textContent()).toBe(state);
    }
    await page.getByRole('status').filter({ hasText: 'live' }).waitFor();
    // The stream starts at the log's present (the snapshot's seq), not replaying its history.
    const stream = requested.find((r) => new URL(r.url).pathname === '/v1/events');
    expect(Number(stream?.lastEventId)).toBeGreaterThan(0);
  });

  it('adds a node created after load, from the event stream', async () => {
    const late = await createNode('created later', [submit({ late: true })]);
    await page.locator(`li[data-node-id="${late.id}"]`).waitFor({ timeout: 10_000 });
    await expect
      .poll(() => page.locator(`li[data-node-id="${late.id}"]`).getAttribute('data-state'), {
        timeout: 10_000,
      })
      .toBe('done');
  });

  it('shows a node with its transcript', async () => {
    await page.getByRole('link', { name: 'finishes at once' }).click();
    await page.getByRole('heading', { name: 'Transcript' }).waitFor();
    expect(await page.getByRole('heading', { name: /^finishes at once/ }).isVisible()).toBe(true);
  });

  it('answers a request in the inbox', async () => {
    await page.getByRole('link', { name: /^Inbox( \d+ open)?$/ }).click();
    const card = page.locator(`article[data-ticket-id="${request.ticket_id}"]`);
    await card.waitFor();
    expect(await card.textContent()).toContain('for the logo');
    await card.getByLabel('blue').check();
    await card.getByLabel('Answer', { exact: true }).fill('bold, please');
    await card.getByRole('button', { name: 'Send answer' }).click();
    const answered = await until('the answer', async () => {
      const r = (await client.request('GET', `/v1/human/requests/${request.id}`)) as {
        state: string;
        response: { choice: string; text: string } | null;
      };
      return r.state === 'answered' ? r : undefined;
    });
    expect(answered.response).toMatchObject({ choice: 'blue', text: 'bold, please' });
    await card.waitFor({ state: 'detached' });
  });

  it('lists the cron', async () => {
    await page.getByRole('link', { name: 'Crons', exact: true }).click();
    const row = page.getByRole('row', { name: /weekday hello/ });
    await row.waitFor();
    expect(await row.textContent()).toContain('0 9 * * 1-5');
  });

  it('lists plugins (none here) and never broke its CSP', async () => {
    await page.getByRole('link', { name: 'Plugins', exact: true }).click();
    await page.getByText('No plugins installed.').waitFor();
    expect(problems).toEqual([]);
  });

  it('shows a hash with a broken escape as not found, not a blank page', async () => {
    await page.goto(`${base}/viewer/#/nodes/%E0%A4%A`);
    await page.getByRole('heading', { name: 'Not found' }).waitFor();
    expect(problems).toEqual([]);
    await page.goto(`${base}/viewer/#/`);
  });

  it('sends its cookie to another port of the host, where it opens nothing without the page key', async () => {
    let cookie: string | undefined;
    const other = createServer((req, res) => {
      cookie ??= req.headers.cookie;
      res.end('<!doctype html><title>another local server</title>');
    });
    await new Promise<void>((resolve) => other.listen(0, '127.0.0.1', resolve));
    try {
      const tab = await page.context().newPage();
      await tab.goto(`http://127.0.0.1:${(other.address() as AddressInfo).port}/`);
      await tab.close();
      expect(cookie).toMatch(new RegExp(`svc_viewer_${new URL(base).port}=`));
      const stolen = await fetch(`${base}/v1/nodes`, { headers: { cookie: cookie! } });
      expect(stolen.status).toBe(401);
    } finally {
      other.close();
    }
  });

  it('says the session ended when another tab logs out', async () => {
    await page.getByRole('status').filter({ hasText: 'live' }).waitFor();
    const tab = await page.context().newPage();
    await tab.goto(`${base}/viewer/#/`);
    await tab.getByRole('button', { name: 'Log out' }).click();
    await tab.getByText('You logged out.').waitFor();
    expect(await tab.evaluate(() => localStorage.getItem('svc-viewer-key'))).toBeNull();
    await page.getByText('Your viewer session ended').waitFor({ timeout: 10_000 });
    // A login in the other tab brings this one back, with the new key it stored.
    const link = (await client.request('POST', '/v1/viewer/links', {})) as { url: string };
    await tab.goto(link.url);
    await page.getByRole('status').filter({ hasText: 'live' }).waitFor({ timeout: 10_000 });
    await tab.close();
  });

  it('drops pruned trees from the canvas live', async () => {
    await page.goto(`${base}/viewer/#/`);
    const done = page.locator(`li[data-node-id="${nodes.done.id}"]`);
    await done.waitFor();
    await client.request('POST', '/v1/canvas/prune', { older_than_s: 0 });
    await done.waitFor({ state: 'detached', timeout: 10_000 });
  });
});
