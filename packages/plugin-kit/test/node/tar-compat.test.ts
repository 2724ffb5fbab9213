/// <reference types="node" />
// Node only: checks the archive against the system's tar, an independent ustar reader.
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { createFetchHandler } from '../../src/index.ts';
import { acmeDefinition, get, memoryLogger } from '../helpers.ts';

const dir = mkdtempSync(join(tmpdir(), 'plugin-kit-tar-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('archive bytes', () => {
  it('are read by the system tar without warnings', async () => {
    const handler = createFetchHandler(acmeDefinition(), { logger: memoryLogger() });
    const bytes = new Uint8Array(await (await handler(get('/plugins'))).arrayBuffer());
    const file = join(dir, 'acme.tar');
    writeFileSync(file, bytes);
    const listing = execFileSync('tar', ['-tvf', file], { encoding: 'utf8' });
    expect(listing).toMatch(/-rw-r--r-- .*plugin\.json/);
    const content = execFileSync('tar', ['-xOf', file, 'plugin.json'], { encoding: 'utf8' });
    expect(JSON.parse(content).commands[0].rest.path).toBe('/plugins/acme/tickets/create');
  });
});
