/**
 * "Always there": the daemon serves the viewer however it was started, so the build is made when
 * the workspace is installed (npm runs a workspace's `prepare` on `npm install` and `npm ci`),
 * not only by `npm start` and `npm test`.
 */
import { readFileSync } from 'node:fs';
import { DEFAULT_VIEWER_DIST } from '@svc/daemon';
import { describe, expect, it } from 'vitest';

const manifest = JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8')) as {
  scripts: Record<string, string>;
};

describe('the viewer build', () => {
  it('is made at install, by the same command as `npm run build`', () => {
    expect(manifest.scripts.prepare).toBe(manifest.scripts.build);
  });

  it('lands where the daemon serves it from by default', () => {
    expect(DEFAULT_VIEWER_DIST).toBe(new URL('../dist/', import.meta.url).pathname);
  });
});
