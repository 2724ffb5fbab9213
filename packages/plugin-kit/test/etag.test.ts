import { describe, expect, it } from 'vitest';
import { ifNoneMatch, strongEtag } from '../src/http/etag.ts';

const tag = '"abc"';

describe('strongEtag', () => {
  it('is a quoted base64url SHA-256, equal for equal bytes', async () => {
    const a = await strongEtag(new TextEncoder().encode('hello'));
    expect(a).toBe('"LPJNul-wow4m6DsqxbninhsWHlwfp0JecwQzYpOLmCQ"');
    expect(await strongEtag(new TextEncoder().encode('hello'))).toBe(a);
    expect(await strongEtag(new TextEncoder().encode('hellO'))).not.toBe(a);
  });
});

describe('If-None-Match (RFC 9110 §13.1.2)', () => {
  it('is false when absent', () => {
    expect(ifNoneMatch(null, tag)).toBe(false);
  });

  it('matches the same tag', () => {
    expect(ifNoneMatch('"abc"', tag)).toBe(true);
  });

  it('uses weak comparison: W/ is ignored', () => {
    expect(ifNoneMatch('W/"abc"', tag)).toBe(true);
  });

  it('matches any member of a comma list, with or without spaces', () => {
    expect(ifNoneMatch('"x", W/"y","abc"', tag)).toBe(true);
    expect(ifNoneMatch('"x", "y"', tag)).toBe(false);
  });

  it('matches * against any current representation', () => {
    expect(ifNoneMatch('*', tag)).toBe(true);
    expect(ifNoneMatch(' * ', tag)).toBe(true);
  });

  it('does not match an unquoted or partial tag', () => {
    expect(ifNoneMatch('abc', tag)).toBe(false);
    expect(ifNoneMatch('"ab"', tag)).toBe(false);
    expect(ifNoneMatch('"abcd"', tag)).toBe(false);
  });

  it('matches nothing in a field that breaks the grammar: a lower-case w/, junk around a tag', () => {
    expect(ifNoneMatch(`w/${tag}`, tag)).toBe(false);
    expect(ifNoneMatch(`x${tag}x`, tag)).toBe(false);
    expect(ifNoneMatch(`${tag}x`, tag)).toBe(false);
    expect(ifNoneMatch(`"other" ${tag}`, tag)).toBe(false);
    expect(ifNoneMatch(`"unterminated, ${tag}`, tag)).toBe(false);
    // a tag holding what etagc excludes: a space, DEL
    expect(ifNoneMatch(`"a b", ${tag}`, tag)).toBe(false);
    expect(ifNoneMatch(`"\x7f", ${tag}`, tag)).toBe(false);
    // OWS is spaces and tabs only
    expect(ifNoneMatch('\xa0*\xa0', tag)).toBe(false);
    expect(ifNoneMatch(' \t* ', tag)).toBe(true);
  });

  it('allows empty list elements and tabs around the tags', () => {
    expect(ifNoneMatch(`, "other" ,\t${tag}\t,`, tag)).toBe(true);
    expect(ifNoneMatch(` W/${tag} `, tag)).toBe(true);
    expect(ifNoneMatch(' , , ', tag)).toBe(false);
  });

  it('keeps a comma inside a quoted tag part of that tag', () => {
    expect(ifNoneMatch('"a,b"', '"a,b"')).toBe(true);
    expect(ifNoneMatch('"a,b"', '"a"')).toBe(false);
  });
});
