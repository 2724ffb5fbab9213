import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, describe, expect, it } from 'vitest';
import { createLogger } from '../src/lifecycle/logger.ts';
import { startTestDaemon } from './helpers.ts';

const run = promisify(execFile);
const LOGGER = new URL('../src/lifecycle/logger.ts', import.meta.url).href;

const dirs: string[] = [];
afterAll(() => {
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
});

function logFile(): string {
  const dir = mkdtempSync(join(tmpdir(), 'svc-log-'));
  dirs.push(dir);
  return join(dir, 'logs', 'daemon.log');
}

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
    request(line);
    logger.info(line, 'request');
    close();
    const [ours, pinos] = readFileSync(file, 'utf8').trim().split('\n');
    const withoutTime = (text = '') => text.replace(/"time":\d+/, '"time":0');
    expect(withoutTime(ours)).toBe(withoutTime(pinos));

    const quiet = logFile();
    const warnOnly = createLogger(quiet, 'warn');
    warnOnly.request(line);
    warnOnly.close();
    expect(readFileSync(quiet, 'utf8')).toBe('');
  });

  it('logs one info line per request, reads included, with no secret', async () => {
    const t = await startTestDaemon({ logLevel: 'info' });
    try {
      const res = await t.call('/v1/status', { headers: { 'svc-request-id': 'log-test-1' } });
      expect(res.status).toBe(200);
      await t.daemon.close();
      const text = readFileSync(join(t.home, 'logs', 'daemon.log'), 'utf8');
      const request = text
        .split('\n')
        .filter((line) => line.includes('log-test-1'))
        .map((line) => JSON.parse(line) as Record<string, unknown>);
      expect(request).toEqual([
        expect.objectContaining({
          level: 30,
          msg: 'request',
          method: 'GET',
          path: '/v1/status',
          status: 200,
          listener: 'unix',
        }),
      ]);
      expect(text).not.toContain(t.ownerToken);
    } finally {
      await t.stop();
    }
  });
});
