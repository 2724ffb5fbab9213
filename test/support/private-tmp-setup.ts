/**
 * Vitest's global setup: the test processes make their sandboxes' private directories in one
 * directory of the run's (`SVC_PRIVATE_TMP`, `packages/daemon/src/sandbox/private-tmp.ts`),
 * removed when the run ends. A test process is ended by a signal, so what it made would
 * otherwise stay in /tmp after every run.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

export default function setup(): () => void {
  const dir = mkdtempSync(join(tmpdir(), 'svc-test-'));
  process.env.SVC_PRIVATE_TMP = dir;
  return () => rmSync(dir, { recursive: true, force: true });
}
