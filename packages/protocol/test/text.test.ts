/** What a person reads may not show as something else: controls and bidirectional characters. */
import { describe, expect, it } from 'vitest';
import {
  memoryWriteBodySchema,
  normalizeAbsolutePath,
  uploadFilenameSchema,
} from '../src/index.ts';

// U+202E RIGHT-TO-LEFT OVERRIDE: `invoice‮fdp.exe` shows as `invoiceexe.pdf`.
const SPOOF = 'invoice\u202Efdp.exe';

describe('unshowable characters', () => {
  it('an upload file name refuses them, and takes any other character', () => {
    expect(uploadFilenameSchema.safeParse(SPOOF).success).toBe(false);
    expect(uploadFilenameSchema.safeParse('a\u2066b').success).toBe(false);
    expect(uploadFilenameSchema.safeParse('a\nb').success).toBe(false);
    expect(uploadFilenameSchema.safeParse('résumé 2026.pdf').success).toBe(true);
  });

  it('a host path of a scope (or of a share, which the daemon normalizes so) refuses them', () => {
    expect(normalizeAbsolutePath(`/home/me/${SPOOF}`).ok).toBe(false);
    expect(normalizeAbsolutePath('/home/me/a\u2069b').ok).toBe(false);
    expect(normalizeAbsolutePath('/home/me/résumés').ok).toBe(true);
  });

  it("a memory document's title refuses them", () => {
    const body = { path: 'notes/a.md', content: 'x' };
    expect(memoryWriteBodySchema.safeParse({ ...body, title: SPOOF }).success).toBe(false);
    expect(memoryWriteBodySchema.safeParse({ ...body, title: 'Notes' }).success).toBe(true);
  });
});
