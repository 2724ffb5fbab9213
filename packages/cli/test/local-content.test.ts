/** The bounded reader of local content (`svc upload FILE`, `--from FILE`): exit 2, never unbounded. */
import { existsSync, mkdtempSync, rmSync, truncateSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { UsageError } from '../src/errors.ts';
import { readContent, readLocal } from '../src/parse/local-content.ts';

const work = mkdtempSync(join(tmpdir(), 'svc-cli-local-'));
afterAll(() => rmSync(work, { recursive: true, force: true }));

const limit = (bytes: number) => ({ bytes, rule: `this takes at most ${bytes}` });

/** The usage error `readLocal` refuses with. */
async function refusal(file: string, bytes: number, label?: string): Promise<string> {
  const err = await readLocal(file, limit(bytes), label).then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(UsageError);
  return (err as UsageError).message;
}

describe('readLocal', () => {
  it('reads a regular file up to its limit', async () => {
    const file = join(work, 'six.txt');
    writeFileSync(file, 'abcdef');
    expect((await readLocal(file, limit(6))).toString()).toBe('abcdef');
    expect(await refusal(file, 5, '--from')).toBe(
      `--from: ${file} is 6 bytes; this takes at most 5`,
    );
  });

  it.each([
    ['a device that never ends', '/dev/zero'],
    ['a directory', tmpdir()],
  ])('refuses %s before reading it', async (_, file) => {
    expect(await refusal(file, 1024, '--from')).toBe(`--from: ${file} is not a regular file`);
  });

  it('refuses a file larger than the limit from its size, without reading it', async () => {
    // 10 GiB, sparse: reading it whole would fail (or take the machine's memory).
    const file = join(work, 'huge.bin');
    writeFileSync(file, '');
    truncateSync(file, 10 * 1024 ** 3);
    expect(await refusal(file, 1024 * 1024)).toBe(
      `${file} is 10737418240 bytes; this takes at most 1048576`,
    );
  });

  it.skipIf(!existsSync('/proc/self/status'))(
    'reads at most one byte past the limit when the size was wrong (a /proc file reads as 0)',
    async () => {
      expect(await refusal('/proc/self/status', 16)).toBe(
        '/proc/self/status is more than 16 bytes; this takes at most 16',
      );
    },
  );

  it('names the file it cannot read, and why', async () => {
    expect(await refusal(join(work, 'missing'), 10, '--from')).toBe(
      `--from: cannot read ${join(work, 'missing')} (ENOENT)`,
    );
  });
});

describe('readContent', () => {
  const refused = (opts: { data?: string; from?: string }, bytes: number) =>
    readContent(opts, limit(bytes)).then(
      () => expect.unreachable('taken'),
      (err: unknown) => {
        expect(err).toBeInstanceOf(UsageError);
        return (err as UsageError).message;
      },
    );

  it('takes --data as UTF-8 text, bounded by the limit in bytes', async () => {
    expect((await readContent({ data: 'é' }, limit(2))).toString()).toBe('é');
    expect(await refused({ data: 'éé' }, 3)).toBe('the content is 4 bytes; this takes at most 3');
  });

  it('takes --from through the bounded file reader', async () => {
    const file = join(work, 'from.txt');
    writeFileSync(file, 'abc');
    expect((await readContent({ from: file }, limit(3))).toString()).toBe('abc');
    expect(await refused({ from: file }, 2)).toBe(
      `--from: ${file} is 3 bytes; this takes at most 2`,
    );
  });

  it('refuses --data with --from', async () => {
    expect(await refused({ data: 'a', from: join(work, 'from.txt') }, 10)).toBe(
      'give --data or --from, not both (without either, stdin is read)',
    );
  });
});
