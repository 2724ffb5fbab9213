/** The TCP listener's Host allow-list, as names and ports arrive in the header. */
import { describe, expect, it } from 'vitest';
import { isAllowedHost } from '../src/http/host-guard.ts';
import { baseUrlOf } from '../src/listeners/tcp.ts';

const tcp = (host: string, port: number) => ({ kind: 'tcp' as const, host, port });

describe('isAllowedHost', () => {
  it('takes loopback names with the bound port, in any case, and nothing else', () => {
    const listener = tcp('127.0.0.1', 8123);
    for (const host of ['127.0.0.1:8123', 'LOCALHOST:8123', '[::1]:8123']) {
      expect(isAllowedHost(listener, host), host).toBe(true);
    }
    for (const host of ['127.0.0.1', 'localhost:8124', 'evil.example:8123', '', undefined]) {
      expect(isAllowedHost(listener, host), String(host)).toBe(false);
    }
  });

  it('takes them without the port on port 80, where clients leave the default port out', () => {
    const listener = tcp('127.0.0.1', 80);
    for (const host of ['127.0.0.1', 'localhost', '127.0.0.1:80', '[::1]']) {
      expect(isAllowedHost(listener, host), host).toBe(true);
    }
    expect(isAllowedHost(listener, 'evil.example')).toBe(false);
  });
});

describe('baseUrlOf', () => {
  it('names the bound address, or the loopback of its family for a wildcard bind', () => {
    expect(baseUrlOf('127.0.0.1', 8123)).toBe('http://127.0.0.1:8123');
    expect(baseUrlOf('::1', 8123)).toBe('http://[::1]:8123');
    expect(baseUrlOf('localhost', 8123)).toBe('http://localhost:8123');
    expect(baseUrlOf('0.0.0.0', 8123)).toBe('http://127.0.0.1:8123');
    for (const any of ['::', '::0', '0:0:0:0:0:0:0:0']) {
      expect(baseUrlOf(any, 8123), any).toBe('http://[::1]:8123');
    }
    // what it advertises for a wildcard bind passes that listener's Host check
    const listener = tcp('0.0.0.0', 8123);
    expect(isAllowedHost(listener, new URL(baseUrlOf('0.0.0.0', 8123)).host)).toBe(true);
  });
});
