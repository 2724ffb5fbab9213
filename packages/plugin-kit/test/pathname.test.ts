import { describe, expect, it } from 'vitest';
import { pathnameOf } from '../src/routing/pathname.ts';

describe('pathnameOf(request.url)', () => {
  it('equals new URL(request.url).pathname', () => {
    const urls = [
      'http://127.0.0.1',
      'http://127.0.0.1:8080/',
      'http://h/plugins/acme/tickets/create',
      'https://h:8443/a/b?x=/y#z',
      'http://h/a#frag/ment?q',
      'http://h?only=query',
      'http://h/a/./b/../c/%2e%2e/d',
      'http://h/a%2Fb/c%2F/',
      'http://h//double//slashes/',
      'http://h/sp ace/ü/<>',
      'http://[::1]:3000/v1/acme/g/c',
    ];
    for (const url of urls) {
      const { url: serialized } = new Request(url);
      expect(`${url} → ${pathnameOf(serialized)}`).toBe(`${url} → ${new URL(serialized).pathname}`);
    }
  });
});
