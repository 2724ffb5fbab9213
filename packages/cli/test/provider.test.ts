/** `svc provider …` against a real daemon calling a real plugin over HTTP on 127.0.0.1. */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { serve } from '@hono/node-server';
import { type DaemonHandle, startDaemon } from '@svc/daemon';
import { createFetchHandler, definePlugin } from '@svc/plugin-kit';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { inProcessSvc, spawnSvc } from './support.ts';

const plugin = definePlugin({
  name: 'echo',
  description: 'Echoes',
  groups: {
    words: {
      description: 'Words',
      commands: {
        say: {
          description: 'Say a word back',
          input: {
            type: 'object',
            properties: { word: { type: 'string', minLength: 1 } },
            required: ['word'],
          },
          handler: ({ word }: { word: string }) => ({ said: word }),
        },
        spell: {
          description: 'Spell a word, a letter at a time',
          async *handler({ word }: { word: string }) {
            yield* [...word];
          },
        },
      },
    },
  },
});
const handler = createFetchHandler(plugin, { logger: { warn() {} } });
const server = serve({ hostname: '127.0.0.1', port: 0, fetch: (request) => handler(request) });

let home: string;
let daemon: DaemonHandle;
beforeAll(async () => {
  home = mkdtempSync(join(tmpdir(), 'svc-cli-pv-'));
  daemon = await startDaemon({ home, logLevel: 'warn' });
  if (!server.listening) await new Promise<void>((resolve) => server.once('listening', resolve));
  const endpoint = `http://127.0.0.1:${(server.address() as AddressInfo).port}/plugins`;
  const installed = await svc('pkg', 'plugin', 'install', '--endpoint', endpoint, '--name', 'echo');
  expect(installed.code, installed.stderr).toBe(0);
});
afterAll(async () => {
  await new Promise((resolve) => server.close(resolve));
  await daemon.close();
  rmSync(home, { recursive: true, force: true });
});

const svc = inProcessSvc(() => home);

describe('svc provider', () => {
  it('tools prints a table, or the list with --json', async () => {
    const table = await svc('provider', 'tools');
    expect(table.code).toBe(0);
    expect(table.stdout).toMatch(/^PROVIDER\s+GROUP\s+COMMAND\s+STREAMING\s+DESCRIPTION\n/);
    expect(table.stdout).toMatch(/echo\s+words\s+say\s+no\s+Say a word back/);
    expect(table.stdout).toMatch(/echo\s+words\s+spell\s+yes\s+Spell a word/);
    const json = await svc('provider', 'tools', '--provider', 'echo', '--json');
    expect(json.code).toBe(0);
    expect(JSON.parse(json.stdout).data).toHaveLength(2);
  });

  it("call prints the output, a stream's items, or the whole answer with --json", async () => {
    const said = await svc('provider', 'call', 'echo', 'words', 'say', '--input', '{"word":"hi"}');
    expect(said.code, said.stderr).toBe(0);
    expect(JSON.parse(said.stdout)).toEqual({ said: 'hi' });
    const file = join(home, 'input.json');
    writeFileSync(file, '{"word":"ab"}');
    const spelt = await svc('provider', 'call', 'echo', 'words', 'spell', '--input', `@${file}`);
    expect(JSON.parse(spelt.stdout)).toEqual(['a', 'b']);
    const whole = await svc(
      'provider',
      'call',
      'echo',
      'words',
      'say',
      '--input',
      '{"word":"x"}',
      '--json',
    );
    expect(JSON.parse(whole.stdout)).toEqual({
      provider: 'echo',
      group: 'words',
      command: 'say',
      output: { said: 'x' },
    });
  });

  it('reads --input - from stdin', async () => {
    const result = await spawnSvc(
      home,
      ['provider', 'call', 'echo', 'words', 'say', '--input', '-'],
      {
        input: '{"word":"piped"}',
      },
    );
    expect(result.code, result.stderr).toBe(0);
    expect(JSON.parse(result.stdout)).toEqual({ said: 'piped' });
  });

  it("exits 1 with the plugin's refusal on one line", async () => {
    const refused = await svc('provider', 'call', 'echo', 'words', 'say', '--input', '{"word":""}');
    expect(refused.code).toBe(1);
    expect(refused.stdout).toBe('');
    // The plugin's own message and code, as the daemon passed them through.
    expect(refused.stderr).toMatch(/^svc: \/word: .*\(validation_failed, request [\w-]+\)\n$/);
    const unknown = await svc('provider', 'call', 'echo', 'words', 'nope');
    expect(unknown.code).toBe(1);
  });

  it('exits 2 on bad usage, before any request', async () => {
    // A home with no daemon: a request would exit 3, not 2.
    const empty = mkdtempSync(join(tmpdir(), 'svc-cli-pv0-'));
    const none = inProcessSvc(() => empty);
    try {
      for (const args of [
        ['provider', 'call', 'Echo', 'words', 'say'],
        ['provider', 'call', 'echo', 'words', 'say', '--input', '[1]'],
        ['provider', 'call', 'echo', 'words', 'say', '--input', '{nope'],
        ['provider', 'call', 'echo', 'words', 'say', '--profile', 'Bad Name'],
        ['provider', 'call', 'echo', 'words'],
        ['provider', 'tools', '--provider', 'UP'],
      ]) {
        const result = await none(...args);
        expect(`${args.join(' ')} → ${result.code}`).toBe(`${args.join(' ')} → 2`);
        expect(result.stderr).toMatch(/^svc: /);
      }
    } finally {
      rmSync(empty, { recursive: true, force: true });
    }
  });
});
