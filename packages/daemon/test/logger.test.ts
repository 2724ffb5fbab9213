import { execFile } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import { requestLogLevel } from '../src/http/request-path.ts';
import { createLogger } from '../src/lifecycle/logger.ts';
import { json, scratchDirs, startTestDaemon } from './helpers.ts';

const run = promisify(execFile);
const LOGGER = new URL('../src/lifecycle/logger.ts', import.meta.url).href;

const tempDir = scratchDirs('svc-log-');
const logFile = () => join(tempDir(), 'logs', 'daemon.log');

const lines = (file: string) =>
  readFileSync(file, 'utf8')
    .trim()
    .split('\n')
    .filter((line) => line !== '')
    .map((line) => JSON.parse(line) as { level: number; msg: string; err?: { message: string } });

/** Runs `body` in a fresh process with `log` bound to a logger on `file`; answers its exit. */
async function inChild(file: string, body: string): Promise<{ code: number; stderr: string }> {
  const script = `import { createLogger } from ${JSON.stringify(LOGGER)};
const { logger: log } = createLogger(${JSON.stringify(file)});
${body}`;
  try {
    const { stderr } = await run(process.execPath, ['--input-type=module', '-e', script]);
    return { code: 0, stderr };
  } catch (error) {
    const failed = error as { code: number; stderr: string };
    return { code: failed.code, stderr: failed.stderr };
  }
}

describe('daemon log', () => {
  it('keeps every line whole and in order across batches, a line larger than a batch included', () => {
    const file = logFile();
    const { logger, close } = createLogger(file);
    const big = 'é€😀x'.repeat(20_000); // 100,000 UTF-16 units, 200,000 bytes: over any batch
    for (let i = 0; i < 2_000; i++) logger.info({ i }, 'small');
    logger.info({ big }, 'big');
    logger.info({ i: 2_000 }, 'small');
    close();
    const read = readFileSync(file, 'utf8')
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line) as { msg: string; i?: number; big?: string });
    expect(read).toHaveLength(2_002);
    expect(read.filter((line) => line.msg === 'small').map((line) => line.i)).toEqual(
      Array.from({ length: 2_001 }, (_, i) => i),
    );
    expect(read[2_000]?.big).toBe(big);
  });

  it('buffers lines, yet writes them within a moment when the daemon is quiet', async () => {
    const file = logFile();
    const { logger, close } = createLogger(file);
    logger.info('first');
    // Buffered: not one write per line.
    expect(readFileSync(file, 'utf8')).toBe('');
    const deadline = Date.now() + 2_000;
    while (readFileSync(file, 'utf8') === '' && Date.now() < deadline) {
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    expect(lines(file).map((l) => l.msg)).toEqual(['first']);
    logger.info('second');
    close();
    expect(lines(file).map((l) => l.msg)).toEqual(['first', 'second']);
  });

  it('writes what is buffered when the process exits', async () => {
    const file = logFile();
    const { code } = await inChild(file, `log.info('before exit'); process.exit(3);`);
    expect(code).toBe(3);
    expect(lines(file).map((l) => l.msg)).toEqual(['before exit']);
  });

  it('on an uncaught exception, logs it at fatal after what was buffered, and still crashes', async () => {
    const file = logFile();
    const { code, stderr } = await inChild(
      file,
      `log.info('before the crash'); setTimeout(() => { throw new Error('boom'); }, 10);`,
    );
    expect(code).toBe(1);
    expect(stderr).toContain('boom');
    const written = lines(file);
    expect(written.map((l) => l.msg)).toEqual(['before the crash', 'uncaught exception; exiting']);
    expect(written[1]).toMatchObject({ level: 60, err: { message: 'boom' } });
  });

  it('writes a request line as pino writes the same fields, and not below its level', () => {
    const file = logFile();
    const { logger, request, close } = createLogger(file);
    const line = {
      request_id: 'req-1',
      method: 'GET',
      path: '/v1/nodes/"odd"\\path',
      status: 404,
      ms: 3,
      listener: 'tcp' as const,
    };
    request(line, 'info');
    logger.info(line, 'request');
    close();
    const [ours, pinos] = readFileSync(file, 'utf8').trim().split('\n');
    const withoutTime = (text = '') => text.replace(/"time":\d+/, '"time":0');
    expect(withoutTime(ours)).toBe(withoutTime(pinos));

    const verbose = logFile();
    const debug = createLogger(verbose, 'debug');
    debug.request(line, 'debug');
    debug.logger.debug(line, 'request');
    debug.close();
    const [ourDebug, pinoDebug] = readFileSync(verbose, 'utf8').trim().split('\n');
    expect(withoutTime(ourDebug)).toBe(withoutTime(pinoDebug));

    const quiet = logFile();
    const warnOnly = createLogger(quiet, 'warn');
    warnOnly.request(line, 'info');
    warnOnly.close();
    expect(readFileSync(quiet, 'utf8')).toBe('');
    const infoOnly = createLogger(quiet, 'info');
    infoOnly.request(line, 'debug');
    infoOnly.close();
    expect(readFileSync(quiet, 'utf8')).toBe('');
  });

  it('logs changes, refusals and failures at info, routine reads at debug, never a secret', async () => {
    const lines = async (level: string) => {
      const t = await startTestDaemon({ logLevel: level });
      try {
        const id = (name: string) => ({ headers: { 'svc-request-id': `log-${name}` } });
        expect((await t.call('/v1/status', id('read'))).status).toBe(200);
        expect((await t.call('/v1/nope', id('unknown'))).status).toBe(404);
        expect((await t.call('/v1/status', { ...id('denied'), token: 'svc_app_x' })).status).toBe(
          401,
        );
        const change = json(
          { app_id: 'log-app', scopes: ['svc:llm'] },
          'POST',
          id('change').headers,
        );
        const minted = await t.call('/v1/connect', change);
        expect(minted.status).toBe(200);
        const { token } = (await minted.json()) as { token: string };
        await t.daemon.close();
        const text = readFileSync(join(t.home, 'logs', 'daemon.log'), 'utf8');
        expect(text).not.toContain(t.ownerToken);
        expect(text).not.toContain(token);
        return text
          .split('\n')
          .filter((line) => line.includes('"msg":"request"'))
          .map((line) => JSON.parse(line) as Record<string, unknown>);
      } finally {
        await t.stop();
      }
    };
    const request = (name: string, level: number, method: string, status: number) =>
      expect.objectContaining({
        request_id: `log-${name}`,
        level,
        method,
        status,
        listener: 'unix',
      });

    expect(await lines('info')).toEqual([
      request('unknown', 30, 'GET', 404),
      request('denied', 30, 'GET', 401),
      request('change', 30, 'POST', 200),
    ]);
    expect(await lines('debug')).toEqual([
      request('read', 20, 'GET', 200),
      request('unknown', 30, 'GET', 404),
      request('denied', 30, 'GET', 401),
      request('change', 30, 'POST', 200),
    ]);
  });

  it('a read is routine only when it succeeds, is quick and its client waited for it', () => {
    expect(requestLogLevel('GET', 200, 5, false)).toBe('debug');
    expect(requestLogLevel('HEAD', 304, 0, false)).toBe('debug');
    expect(requestLogLevel('OPTIONS', 204, 0, false)).toBe('debug');
    expect(requestLogLevel('GET', 200, 1_000, false)).toBe('info');
    expect(requestLogLevel('GET', 200, 5, true)).toBe('info');
    expect(requestLogLevel('GET', 404, 5, false)).toBe('info');
    expect(requestLogLevel('POST', 200, 5, false)).toBe('info');
    expect(requestLogLevel('DELETE', 204, 5, false)).toBe('info');
  });
});
