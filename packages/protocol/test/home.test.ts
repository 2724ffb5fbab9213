import { homedir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { homePaths, resolveHome, SOCKET_PATH_MAX_BYTES, socketPathProblem } from '../src/home.ts';

const saved = process.env.SVC_HOME;
afterEach(() => {
  if (saved === undefined) delete process.env.SVC_HOME;
  else process.env.SVC_HOME = saved;
});

describe('resolveHome', () => {
  it('explicit wins over SVC_HOME, which wins over ~/.svc', () => {
    process.env.SVC_HOME = '/srv/env-home';
    expect(resolveHome('/srv/flag-home')).toBe('/srv/flag-home');
    expect(resolveHome()).toBe('/srv/env-home');
    delete process.env.SVC_HOME;
    expect(resolveHome()).toBe(join(homedir(), '.svc'));
    process.env.SVC_HOME = '  ';
    expect(resolveHome()).toBe(join(homedir(), '.svc'));
  });

  it('makes the result absolute and expands ~/', () => {
    expect(resolveHome('rel/home')).toBe(join(process.cwd(), 'rel/home'));
    expect(resolveHome('~/x')).toBe(join(homedir(), 'x'));
  });
});

describe('homePaths', () => {
  it('lays out the files under the home', () => {
    expect(homePaths('/h')).toEqual({
      home: '/h',
      db: '/h/svc.db',
      socket: '/h/daemon.sock',
      lock: '/h/daemon.lock',
      ownerToken: '/h/owner.token',
      logs: '/h/logs',
      logFile: '/h/logs/daemon.log',
    });
  });

  it('keeps the socket bindable under a deep home: a short, stable, per-home path', () => {
    const deep = `/tmp/${'d'.repeat(150)}`;
    const a = homePaths(deep);
    expect(socketPathProblem(join(deep, 'daemon.sock'))).toMatch(/over the 103-byte limit/);
    expect(Buffer.byteLength(a.socket)).toBeLessThanOrEqual(SOCKET_PATH_MAX_BYTES);
    expect(socketPathProblem(a.socket)).toBeNull();
    expect(homePaths(deep).socket).toBe(a.socket);
    expect(homePaths(`${deep}x`).socket).not.toBe(a.socket);
    expect(a.db).toBe(`${deep}/svc.db`);
  });

  it('counts bytes, not characters', () => {
    expect(socketPathProblem(`/${'é'.repeat(60)}`)).not.toBeNull(); // 121 bytes, 61 characters
  });
});
