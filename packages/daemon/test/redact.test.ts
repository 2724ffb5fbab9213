/** `redactSecrets`: what of a key a provider's message may not carry, and what it keeps. */
import { Buffer } from 'node:buffer';
import { describe, expect, it } from 'vitest';
import { redactSecrets } from '../src/redact.ts';

const KEY = 'sk-ant-api03-Zq8v7RkP2mW9xT4bN6cY1hJ5';

describe('redactSecrets', () => {
  it('blanks the key, stretches of it, and its URL and base64 forms', () => {
    const b64 = Buffer.from(KEY).toString('base64');
    const cases = [
      `key ${KEY} refused`,
      `key ${KEY.slice(0, 12)}...${KEY.slice(-6)} refused`,
      `key ${KEY.slice(10, 30)} refused`,
      `key ${encodeURIComponent(`${KEY}/+`)} refused`,
      `key ${b64} refused`,
      `key ${b64.replaceAll('+', '-').replaceAll('/', '_').replace(/=+$/, '')} refused`,
      // inside Basic credentials: the key's bytes at another base64 alignment
      `Basic ${Buffer.from(`u:${KEY}`).toString('base64')} refused`,
      `Basic ${Buffer.from(`us:${KEY}`).toString('base64')} refused`,
    ];
    for (const text of cases) {
      const out = redactSecrets(text, [KEY]);
      expect(out, text).toMatch(/^(key|Basic) .*\[redacted\].* refused$/);
      for (let i = 0; i + 8 <= KEY.length; i++)
        expect(out, text).not.toContain(KEY.slice(i, i + 8));
      expect(out, text).not.toContain(b64.slice(4, 20));
    }
  });

  it('keeps what is no part of the key, a provider’s last-4 mask included', () => {
    const text = 'Incorrect API key provided: ****hJ5. See https://example.test/docs for help.';
    expect(redactSecrets(text, [KEY])).toBe(text);
    expect(redactSecrets('nothing here', [undefined, '', KEY])).toBe('nothing here');
  });

  it('blanks a short secret only where it stands whole', () => {
    expect(redactSecrets('token abc123 and abc12', ['abc123'])).toBe('token [redacted] and abc12');
  });
});
