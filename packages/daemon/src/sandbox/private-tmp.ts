/**
 * Where this process makes the directories its sandboxes need and nobody else may enter (its
 * launcher's socket, its seccomp filter, its nodes' proxy sockets; each made 0700 there):
 * `SVC_PRIVATE_TMP` when given, else a directory of its own in the system's temporary directory.
 * Each agent host is given a directory of its own by the daemon (`supervisor/agent-host.ts`),
 * which removes it once the host has exited: a host killed whole (a stop's SIGKILL, a crash)
 * runs no exit handler, and each such host used to leave two or three directories in /tmp for
 * good. Never the system's directory itself: a command whose scopes bind `/tmp` read-write
 * would find the seccomp filter every later sandbox loads there, and could rewrite it. One
 * directory is what every sandbox plan hides and the files routes fence, whatever `/tmp` holds.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

export const PRIVATE_TMP_ENV = 'SVC_PRIVATE_TMP';

let own: string | undefined;

export function privateTmp(): string {
  const given = process.env[PRIVATE_TMP_ENV];
  if (given !== undefined && given !== '') return given;
  if (own === undefined) {
    const made = mkdtempSync(join(tmpdir(), 'svc-private-'));
    process.once('exit', () => rmSync(made, { recursive: true, force: true }));
    own = made;
  }
  return own;
}
