/**
 * The descriptors bwrap inherits (src/sandbox/descriptors.ts), opened just before a start: a
 * bind's handle is the path itself or nothing starts (a link in its place, or gone, is refused
 * with 503 `sandbox_unavailable`); a file to copy is opened for reading; and when one of several
 * fails, none of the others is left open.
 */
import {
  fstatSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { openDescriptor, openDescriptors } from '../../src/sandbox/descriptors.ts';

const scratch = mkdtempSync(join(tmpdir(), 'svc-descriptors-'));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));
const dir = join(scratch, 'dir');
mkdirSync(dir);
const file = join(scratch, 'file');
writeFileSync(file, 'x');
const link = join(scratch, 'link');
symlinkSync(dir, link);
const open = () => readdirSync('/proc/self/fd').length;

describe('the descriptors of a sandbox start', () => {
  it('opens a bind’s handle on the path itself, and a file to copy for reading', () => {
    const [handle, read] = openDescriptors([
      { mode: 'p', path: dir },
      { mode: 'r', path: file },
    ]);
    expect(fstatSync(handle!).isDirectory()).toBe(true);
    expect(fstatSync(read!).isFile()).toBe(true);
  });

  it('refuses a bind whose path is a link now, or gone, with 503 sandbox_unavailable', () => {
    for (const path of [link, join(scratch, 'gone')]) {
      expect(() => openDescriptor({ mode: 'p', path })).toThrow(
        expect.objectContaining({ code: 'sandbox_unavailable' }),
      );
    }
  });

  it('leaves none open when one of several cannot be', () => {
    const before = open();
    expect(() =>
      openDescriptors([
        { mode: 'p', path: dir },
        { mode: 'r', path: file },
        { mode: 'p', path: link },
      ]),
    ).toThrow(/changed while it was made/);
    expect(open()).toBe(before);
  });
});
