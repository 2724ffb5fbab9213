/**
 * The viewer as the person's control room, in Debian's Chromium against a real daemon with
 * scripted nodes on real brokers: the canvas (attention first, newest first, filters, live
 * durations, wait reasons as links), a node's page (tool results beside their calls, folded
 * output, readable events), every action (message, interrupt, cancel, revive, fork, budgets, a
 * new node and run), the inbox (open count, the asker's title, a form from the response schema,
 * the answer in the history) and usage; by keyboard, and in a phone-width window.
 *
 * `SVC_VIEWER_SCREENSHOTS=1` also writes each view's screenshot to docs/viewer/ (docs/viewer.md
 * shows them).
 */
import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
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
const VIEWER = fileURLToPath(new URL('..', import.meta.url));
const SHOTS = process.env.SVC_VIEWER_SCREENSHOTS === '1' ? join(VIEWER, '../../docs/viewer') : null;

type Client = ReturnType<typeof createLocalClient>;
interface Node {
  id: string;
  title: string;
  state: string;
  scopes: string[] | null;
  budgets: { max_turns: number | null };
  waiting_on: { for: string; request_id?: string } | null;
}

const scripted = (script: unknown[]) => ({ provider: 'scripted', model: 'demo', script });
const call = (
  name: string,
  input: unknown,
  usage = { input_tokens: 1200, output_tokens: 300 },
) => ({
  tool_calls: [{ name, input }],
  usage,
});
const WRITTEN = 'The logs show two timeouts, both at the cache; raising its pool should fix it.';
const submit = (result: unknown) => call('submit', { result, summary: 'all done' });

/** Polls `check` every 50 ms until it answers a value, for at most `ms`. */
async function until<T>(what: string, check: () => Promise<T | undefined>, ms = 15_000) {
  const deadline = Date.now() + ms;
  for (;;) {
    const value = await check();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

describe.skipIf(!present && !onCi)('the control room in Chromium', () => {
  let home = '';
  let daemon: DaemonHandle | undefined;
  let client: Client;
  let browser: Browser | undefined;
  let page: Page;
  let base = '';
  const problems: string[] = [];
  const n = {} as Record<
    'tools' | 'asks' | 'budget' | 'failed' | 'yields' | 'sleeps' | 'doomed' | 'writes' | 'child',
    Node
  >;

  const create = (title: string, script: unknown[], extra: Record<string, unknown> = {}) =>
    client.request('POST', '/v1/nodes', {
      task: `${title}: the task`,
      title,
      model: scripted(script),
      ...extra,
    }) as Promise<Node>;
  const get = (id: string) => client.request('GET', `/v1/nodes/${id}`) as Promise<Node>;
  const reach = (node: Node, state: string, ms?: number) =>
    until(
      `${node.title} ${state}`,
      async () => {
        const now = await get(node.id);
        return now.state === state ? now : undefined;
      },
      ms,
    );
  const shot = async (name: string) => {
    if (SHOTS !== null) await page.screenshot({ path: join(SHOTS, `${name}.png`), fullPage: true });
  };
  const open = async (hash: string) => {
    await page.goto(`${base}/viewer/${hash}`);
    await page.getByRole('status').filter({ hasText: 'live' }).waitFor();
  };

  beforeAll(async () => {
    if (!present) throw new Error(`no Chromium at ${CHROMIUM}: run scripts/ensure-chromium.sh`);
    if (SHOTS !== null) mkdirSync(SHOTS, { recursive: true });
    home = mkdtempSync(join(tmpdir(), 'svc-control-'));
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
      brokers: { concurrency: 6 },
    });
    base = daemon.tcp!.base_url;
    client = createLocalClient({ home });
    // What the viewer's "New node" form starts when it names no model.
    await client.request('PUT', '/v1/profiles/default', {
      model: scripted([submit({ from: 'the viewer' })]),
    });

    n.tools = await create('tools both ways', [
      {
        text: 'Listing, then a report without its text.',
        tool_calls: [
          { name: 'bash', input: { command: 'seq 1 40' } },
          { name: 'report', input: {} },
        ],
        usage: { input_tokens: 5000, output_tokens: 800 },
      },
      submit({ listed: 40 }),
    ]);
    n.asks = await create('asks for a deploy', [
      call('ask_human', {
        title: 'Deploy v2?',
        body: 'The build is green.',
        kind: 'approval',
        options: ['approve', 'reject'],
      }),
      submit({ deployed: true }),
    ]);
    n.budget = await create(
      'parks at its budget',
      [call('report', { text: 'half way' }), submit({ ok: 1 })],
      { budgets: { max_turns: 1 } },
    );
    n.failed = await create('runs out of script', [call('report', { text: 'one step' })]);
    n.yields = await create('waits for mail', [
      call('yield', { reason: 'tell me more' }),
      submit({ ok: 2 }),
    ]);
    n.sleeps = await create('sleeps in bash', [call('bash', { command: 'sleep 120' })]);
    n.doomed = await create('to be cancelled', [call('yield', {}), submit({})]);
    // Runs until the test says go (a file in its worktree), then writes its text. Bounded at
    // 9 minutes, not 20 s: the tests before this one's may take longer than that on a loaded
    // machine, and a node that stopped waiting on its own has nothing live left to show.
    n.writes = await create('writes as you watch', [
      call('bash', {
        command: 'for i in $(seq 1 10800); do [ -f go ] && break; sleep 0.05; done',
        timeout_ms: 590_000,
      }),
      { text: WRITTEN, tool_calls: [{ name: 'yield', input: {} }] },
    ]);
    await reach(n.tools, 'done');
    await reach(n.asks, 'waiting');
    await reach(n.budget, 'waiting');
    await reach(n.failed, 'failed');
    await reach(n.yields, 'waiting');
    await reach(n.doomed, 'waiting');
    await reach(n.sleeps, 'running');
    await reach(n.writes, 'running');
    // A question from inside a tree: its asker is named with the tree's root.
    n.child = await create(
      'asks from inside a tree',
      [
        call('ask_human', { title: 'Which region first?', body: '', options: ['eu', 'us'] }),
        submit({}),
      ],
      { parent_id: n.sleeps.id },
    );
    await reach(n.child, 'waiting');

    browser = await chromium.launch({
      executablePath: CHROMIUM,
      headless: true,
      args: process.getuid?.() === 0 ? ['--no-sandbox'] : [],
    });
    page = await (await browser.newContext({ viewport: { width: 1280, height: 900 } })).newPage();
    // A step that does not happen fails with what it waited for, well inside the test's time.
    page.setDefaultTimeout(8_000);
    page.on('console', (m) => {
      // The one refusal a test provokes on purpose (scopes with svc:act) is logged by Chromium.
      if (m.type() === 'error' && !m.text().includes('status of 403')) problems.push(m.text());
    });
    page.on('pageerror', (e) => problems.push(e.message));
    const link = (await client.request('POST', '/v1/viewer/links', {})) as { url: string };
    await page.goto(link.url);
    await page.getByRole('status').filter({ hasText: 'live' }).waitFor();
  }, 90_000);

  afterAll(async () => {
    await browser?.close();
    await daemon?.close();
    if (home !== '') rmSync(home, { recursive: true, force: true });
  });

  describe('the canvas', () => {
    it('puts what needs the person first, each a link to act on', async () => {
      const attention = page.getByRole('region', { name: /Needs you/ });
      await attention.waitFor();
      const text = await attention.textContent();
      expect(text).toContain('Deploy v2?');
      expect(text).toContain('runs out of script');
      expect(text).toContain('parks at its budget');
      await shot('canvas');
    });

    it('lists the trees that need the person first, then newest first, each with model, turns, tokens, cost and duration', async () => {
      const ids = await page
        .locator('ul.tree > li')
        .evaluateAll((els) => els.map((el) => el.getAttribute('data-node-id')));
      // The trees that need the person first (newest first among them), then the rest.
      expect(ids.slice(0, 4)).toEqual([n.sleeps.id, n.failed.id, n.budget.id, n.asks.id]);
      expect(ids.indexOf(n.doomed.id)).toBeLessThan(ids.indexOf(n.tools.id));
      const row = page.locator(`li[data-node-id="${n.tools.id}"] .node-row`);
      expect(await row.textContent()).toMatch(/demo · 2 turns · 7\.\dk tok · \$0 · \d+(ms|s)/);
    });

    it('counts a running node’s duration up, live', async () => {
      const duration = page.locator(`li[data-node-id="${n.sleeps.id}"] > .node-row .duration`);
      const first = await duration.textContent();
      await expect.poll(() => duration.textContent(), { timeout: 5_000 }).not.toBe(first);
    });

    it('links a wait reason to the ticket it waits on', async () => {
      const reason = page.locator(`li[data-node-id="${n.asks.id}"] .waiting-on a`);
      expect(await reason.textContent()).toBe('Deploy v2?');
      expect(await reason.getAttribute('href')).toMatch(/^#\/inbox\/tk_/);
    });

    it("links a child's page to its parent by title", async () => {
      await open(`#/nodes/${n.child.id}`);
      const parent = page.locator('p.parent a');
      await expect.poll(() => parent.textContent()).toBe('sleeps in bash');
      await parent.click();
      await page.getByRole('heading', { name: /sleeps in bash/ }).waitFor();
      await page.getByRole('link', { name: 'asks from inside a tree' }).first().waitFor();
      await open('#/');
    });

    it('folds a subtree away and back', async () => {
      const child = page.locator(`li[data-node-id="${n.child.id}"]`);
      await child.waitFor();
      const fold = page.getByRole('button', { name: 'Hide the 1 child of sleeps in bash' });
      expect(await fold.getAttribute('aria-expanded')).toBe('true');
      await fold.click();
      await child.waitFor({ state: 'detached' });
      const unfold = page.getByRole('button', { name: 'Show the 1 child of sleeps in bash' });
      expect(await unfold.textContent()).toBe('▸ 1');
      await unfold.press('Enter');
      await child.waitFor();
    });

    it('filters by text and state, keeping a match in its tree', async () => {
      // "/" jumps to the search from anywhere on the canvas.
      await page.locator('body').click({ position: { x: 5, y: 600 } });
      await page.keyboard.press('/');
      await page.keyboard.type('budget');
      expect(await page.getByRole('searchbox', { name: 'Search' }).inputValue()).toBe('budget');
      await expect.poll(() => page.locator('ul.tree > li').count()).toBe(1);
      await page.getByRole('button', { name: 'Clear' }).click();
      await page.getByRole('combobox', { name: 'State' }).selectOption('failed');
      await expect
        .poll(() =>
          page
            .locator('ul.tree li')
            .evaluateAll((els) => els.map((e) => e.getAttribute('data-state'))),
        )
        .toEqual(['failed']);
      await page.getByRole('button', { name: 'Clear' }).click();
    });
  });

  describe("a node's page", () => {
    it('shows the text as the model writes it, before the turn is recorded', async () => {
      await open(`#/nodes/${n.writes.id}`);
      await page.locator('[data-live="open"]').waitFor();
      // Every text the live block shows, as it changes.
      await page.evaluate(() => {
        const seen: string[] = [];
        (globalThis as unknown as { seen: string[] }).seen = seen;
        new MutationObserver(() => {
          const text = document.querySelector('.live-text')?.textContent;
          if (text) seen.push(text);
        }).observe(document.body, { subtree: true, childList: true, characterData: true });
      });
      writeFileSync(join(home, 'worktrees', n.writes.id, 'go'), '');
      await reach(n.writes, 'waiting');
      await page.locator('.transcript .model-text', { hasText: WRITTEN }).waitFor();
      const seen = await page.evaluate(() => (globalThis as unknown as { seen: string[] }).seen);
      expect(seen).toContain(WRITTEN);
      expect(await page.locator('.live-turn').count()).toBe(0);
    });

    it('shows each tool call with its result beside it, success and error told apart, long output folded', async () => {
      await open(`#/nodes/${n.tools.id}`);
      const bash = page.locator('li.tool[data-tool="bash"]');
      await bash.waitFor();
      expect(await bash.getAttribute('data-status')).toBe('ok');
      const report = page.locator('li.tool[data-tool="report"]');
      expect(await report.getAttribute('data-status')).toBe('error');
      expect(await report.locator('.badge').textContent()).toBe('error');
      // 40 lines of output: the head shows, the rest behind "show all".
      const folded = bash.locator('details.folded');
      expect(await folded.locator('summary').textContent()).toMatch(/show all \d+ lines/);
      expect(await folded.getAttribute('open')).toBeNull();
      await folded.locator('summary').click();
      expect(await folded.getAttribute('open')).toBe('');
      expect(await folded.locator('summary').innerText()).toBe('show less');
      // The job the bash call ran as, with the same output beside it.
      const job = page.locator('ul.jobs li').first();
      await job.locator('summary', { hasText: 'output' }).click();
      expect(await job.textContent()).toContain('exit 0');
      expect(await job.locator('details').first().textContent()).toContain('show all 40 lines');
      await shot('node');
    });

    it('shows events as readable lines with the raw JSON a click away', async () => {
      const line = page.locator('ol.events li.event-node-state').first();
      expect(await line.locator('.event-text').textContent()).toMatch(
        /created → queued \(create\)/,
      );
      const raw = line.locator('details');
      expect(await raw.locator('pre').isVisible()).toBe(false);
      await raw.locator('summary').click();
      expect(await raw.locator('pre').textContent()).toContain('"kind": "node.state"');
    });

    it('offers only the actions its state allows', async () => {
      // A done node: fork, nothing that would move it.
      expect(await page.getByRole('button', { name: 'Cancel node' }).count()).toBe(0);
      expect(await page.getByRole('button', { name: 'Revive' }).count()).toBe(0);
      expect(await page.locator('.node-actions summary', { hasText: /^Fork$/ }).count()).toBe(1);
    });
  });

  describe('actions', () => {
    it('messages a waiting node, which wakes and finishes', async () => {
      await open(`#/nodes/${n.yields.id}`);
      await page.getByText('waits for a message').waitFor();
      await page.getByLabel('Message', { exact: true }).fill('here is more');
      await page.getByRole('button', { name: 'Send message' }).click();
      await page.getByRole('status').filter({ hasText: 'Message sent.' }).waitFor();
      await page.locator('h2 .badge', { hasText: 'done' }).waitFor({ timeout: 15_000 });
      expect(await page.locator('.event-node-mail .event-text').textContent()).toContain(
        'here is more',
      );
    });

    it('interrupts a running node after asking, and says so', async () => {
      await open(`#/nodes/${n.sleeps.id}`);
      await page.getByRole('button', { name: 'Interrupt' }).click();
      await page.getByRole('button', { name: 'Yes, interrupt' }).click();
      await page.getByRole('status').filter({ hasText: 'Interrupted' }).waitFor();
      await page.locator('h2 .badge', { hasText: 'waiting' }).waitFor();
      expect((await get(n.sleeps.id)).state).toBe('waiting');
    });

    it('cancels by keyboard: Enter on the button, then Enter on the confirmation', async () => {
      await open(`#/nodes/${n.doomed.id}`);
      const cancel = page.getByRole('button', { name: 'Cancel node' });
      await cancel.focus();
      await page.keyboard.press('Enter');
      const yes = page.getByRole('button', { name: 'Yes, cancel node' });
      await expect.poll(() => yes.evaluate((el) => el === document.activeElement)).toBe(true);
      // Escape takes the question back; the node stays as it was.
      await page.keyboard.press('Escape');
      await cancel.waitFor();
      expect((await get(n.doomed.id)).state).toBe('waiting');
      await cancel.focus();
      await page.keyboard.press('Enter');
      await expect.poll(() => yes.evaluate((el) => el === document.activeElement)).toBe(true);
      await page.keyboard.press('Enter');
      await page.locator('h2 .badge', { hasText: 'cancelled' }).waitFor();
      expect((await get(n.doomed.id)).state).toBe('cancelled');
    });

    it('revives a failed node with a message', async () => {
      await open(`#/nodes/${n.failed.id}`);
      await page.getByLabel('Message on revival (optional)').fill('try once more');
      await page.getByRole('button', { name: 'Revive' }).click();
      await page.getByRole('status').filter({ hasText: 'Revived' }).waitFor();
      // It runs out of script again: the page follows it back to failed, live.
      await until('a second failure', async () => {
        const events = (await client.request(
          'GET',
          `/v1/nodes/${n.failed.id}/events?limit=200`,
        )) as {
          data: { kind: string; payload: { action?: string } }[];
        };
        return events.data.some((e) => e.payload.action === 'revive') ? true : undefined;
      });
      await page.locator('.event-node-state .event-text', { hasText: '(revive)' }).waitFor();
    });

    it('raises the budget a node is parked at, and it finishes', async () => {
      await open(`#/nodes/${n.budget.id}`);
      await page.getByText('parked at its max turns budget').waitFor();
      await page.getByLabel('Max turns').fill('3');
      await page.getByRole('button', { name: 'Save budgets' }).click();
      await page.getByRole('status').filter({ hasText: 'Budgets saved' }).waitFor();
      expect((await get(n.budget.id)).budgets.max_turns).toBe(3);
      await page.locator('h2 .badge', { hasText: 'done' }).waitFor({ timeout: 10_000 });
      // Done, the node has no budgets form any more: what the save said stays all the same.
      expect(await page.getByRole('form', { name: 'Budgets' }).count()).toBe(0);
      await page.getByRole('status').filter({ hasText: 'Budgets saved' }).waitFor();
    });

    it('forks a node with models-only scopes and opens the fork', async () => {
      await open(`#/nodes/${n.tools.id}`);
      await page.locator('.node-actions summary', { hasText: /^Fork$/ }).click();
      await page.getByLabel('Add to the copied conversation (optional)').fill('now count to 20');
      await page.getByRole('button', { name: 'Fork', exact: true }).click();
      await page.getByRole('link', { name: 'Open it' }).click();
      await page.getByRole('heading', { name: /tools both ways/ }).waitFor();
      const id = decodeURIComponent(new URL(page.url()).hash.slice('#/nodes/'.length));
      expect(id).not.toBe(n.tools.id);
      expect((await get(id)).scopes).toEqual(['svc:llm']);
    });

    it('says why when the scopes ask for svc:act, and makes nothing', async () => {
      await open('#/new');
      await page.getByLabel('Task').fill('run a command');
      await page.getByLabel('Scopes').fill('svc:llm, svc:act');
      await page.getByRole('button', { name: 'Create node' }).click();
      const alert = page.getByRole('alert');
      await alert.waitFor();
      expect(await alert.textContent()).toContain("holds no 'svc:act'");
      expect(page.url()).toMatch(/#\/new$/);
    });

    it('creates a node from the form and opens its page, where it finishes', async () => {
      await open('#/');
      await open('#/new');
      await page.getByLabel('Scopes').fill('svc:llm');
      await page.getByLabel('Task').fill('write the release notes');
      await page.getByLabel('Title (optional)').fill('release notes');
      await shot('new-node');
      await page.getByRole('button', { name: 'Create node' }).click();
      await page.getByRole('heading', { name: /release notes/ }).waitFor();
      await page.locator('h2 .badge', { hasText: 'done' }).waitFor({ timeout: 15_000 });
    });

    it('starts a run from the form', async () => {
      await open('#/new');
      await page.getByLabel('a run (a root node with a run handle)').check();
      await page.getByLabel('Task').fill('a run from the viewer');
      await page.getByRole('button', { name: 'Start run' }).click();
      await page.getByRole('heading', { name: /a run from the viewer/ }).waitFor();
      const runs = (await client.request('GET', '/v1/runs/all?limit=50')) as {
        data: { title: string; scopes: string[] }[];
      };
      expect(runs.data.find((r) => r.title === 'a run from the viewer')?.scopes).toEqual([
        'svc:llm',
      ]);
    });
  });

  describe('the inbox', () => {
    let schemaTicket = '';

    it('shows the open count in the navigation, live', async () => {
      await open('#/inbox');
      const count = page.locator('header nav .count');
      await expect.poll(() => count.getAttribute('data-open')).toBe('2');
      const asked = (await client.request('POST', '/v1/human/requests', {
        title: 'How many replicas?',
        body: 'for the new region',
        response_schema: {
          type: 'object',
          properties: {
            replicas: { type: 'integer', title: 'Replicas', description: 'at least 1' },
            region: { enum: ['eu', 'us'], title: 'Region' },
            canary: { type: 'boolean', title: 'Canary first' },
          },
          required: ['replicas', 'region'],
        },
      })) as { ticket_id: string };
      schemaTicket = asked.ticket_id;
      await expect.poll(() => count.getAttribute('data-open'), { timeout: 10_000 }).toBe('3');
    });

    it("names the asking node by its title, and draws the question's form from its schema", async () => {
      const deploy = page.locator('article.ticket', { hasText: 'Deploy v2?' });
      expect(await deploy.locator('a.asker').textContent()).toBe('asks for a deploy');
      const card = page.locator(`article[data-ticket-id="${schemaTicket}"]`);
      await card.waitFor();
      await card.getByLabel('Replicas *').fill('3');
      await card.getByLabel('Region *').selectOption('eu');
      await card.getByLabel('Canary first').check();
      await shot('inbox');
      await card.getByRole('button', { name: 'Send answer' }).click();
      await page.getByRole('status').filter({ hasText: 'Answered “How many replicas?”' }).waitFor();
      await card.waitFor({ state: 'detached' });
      const answer = (await client.request('GET', `/v1/human/inbox/${schemaTicket}/response`)) as {
        data: unknown;
      };
      expect(answer.data).toEqual({ replicas: 3, region: 'eu', canary: true });
      await expect
        .poll(() => page.locator('header nav .count').getAttribute('data-open'))
        .toBe('2');
    });

    it('answers the approval, and its node goes on', async () => {
      const deploy = page.locator('article.ticket', { hasText: 'Deploy v2?' });
      await deploy.getByLabel('approve').check();
      await deploy.getByRole('button', { name: 'Send answer' }).click();
      await page
        .getByRole('status')
        .filter({ hasText: 'Answered “Deploy v2?”: approve.' })
        .waitFor();
      await reach(n.asks, 'done');
      await expect
        .poll(() => page.locator('header nav .count').getAttribute('data-open'))
        .toBe('1');
    });

    it('names a child asker with the tree it is in', async () => {
      const card = page.locator('article.ticket', { hasText: 'Which region first?' });
      expect(await card.locator('a.asker').textContent()).toBe('asks from inside a tree');
      await expect.poll(() => card.locator('a.asker-root').textContent()).toBe('sleeps in bash');
      await card.getByLabel('eu').check();
      await card.getByRole('button', { name: 'Send answer' }).click();
      await page
        .getByRole('status')
        .filter({ hasText: 'Answered “Which region first?”: eu.' })
        .waitFor();
      await page.locator('header nav .count').waitFor({ state: 'detached' });
    });

    it('declines a request only once the person confirms it', async () => {
      const asked = (await client.request('POST', '/v1/human/requests', {
        title: 'Lunch at noon?',
      })) as { id: string; ticket_id: string };
      const card = page.locator(`article[data-ticket-id="${asked.ticket_id}"]`);
      await card.waitFor();
      await card.getByLabel('Note or reason').fill('busy');
      await card.getByRole('button', { name: 'Decline' }).click();
      await card.getByRole('button', { name: 'No' }).click();
      expect(await card.isVisible()).toBe(true);
      await card.getByRole('button', { name: 'Decline' }).click();
      await card.getByRole('button', { name: 'Yes, decline' }).click();
      await page.getByRole('status').filter({ hasText: 'Declined “Lunch at noon?”.' }).waitFor();
      const request = (await client.request('GET', `/v1/human/requests/${asked.id}`)) as {
        state: string;
      };
      // Declined in the inbox: the asker's request is dismissed.
      expect(request.state).toBe('dismissed');
    });

    it('shows each answer, and who gave it, in the history', async () => {
      await page.getByRole('link', { name: 'History' }).click();
      const card = page.locator(`article[data-ticket-id="${schemaTicket}"]`);
      await card.locator('.answer').waitFor();
      const text = await card.locator('.answer').textContent();
      expect(text).toContain('Answered by you');
      // When it was answered: the inbox's `respondedAt`, a real time.
      const at = await card.locator('.answer time').getAttribute('datetime');
      expect(Number.isNaN(Date.parse(at ?? ''))).toBe(false);
      expect(text).not.toContain('Invalid Date');
      expect(text).toContain('"replicas": 3');
      const deploy = page.locator('article.ticket', { hasText: 'Deploy v2?' });
      expect(await deploy.locator('.answer').textContent()).toContain('Choice: approve');
      await shot('inbox-history');
    });
  });

  describe('usage', () => {
    it('charts tokens and cost per day, profile and model', async () => {
      await page.getByRole('link', { name: 'Usage', exact: true }).click();
      await page.getByRole('img', { name: 'cost by group' }).waitFor();
      await page.getByLabel('tokens').check();
      await page.getByLabel('per model').check();
      await page.getByRole('img', { name: 'tokens by group' }).waitFor();
      const row = page.getByRole('row', { name: /scripted\/demo|demo/ });
      await row.first().waitFor();
      expect(await page.locator('svg.bars rect.bar').count()).toBeGreaterThan(0);
      await shot('usage');
    });
  });

  describe('a phone-width window', () => {
    it('fits the canvas, a node and the inbox without sideways scrolling', async () => {
      await page.setViewportSize({ width: 390, height: 844 });
      try {
        for (const hash of ['#/', `#/nodes/${n.tools.id}`, '#/inbox/history', '#/new', '#/usage']) {
          await open(hash);
          await page.locator('main h2').first().waitFor();
          const wide = await page.evaluate(() => document.documentElement.scrollWidth);
          expect(wide, hash).toBeLessThanOrEqual(390);
        }
        await open(`#/nodes/${n.tools.id}`);
        await page.locator('li.tool').first().waitFor();
        await shot('node-phone');
      } finally {
        await page.setViewportSize({ width: 1280, height: 900 });
      }
    });

    it('broke no CSP rule and threw nothing', () => {
      expect(problems, problems.join(' | ')).toEqual([]);
    });
  });
});
