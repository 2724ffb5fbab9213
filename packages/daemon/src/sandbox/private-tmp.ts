/**
 * Where this process makes the directories its sandboxes need and nobody else may enter (its
 * launcher's socket, its seccomp filter, its nodes' proxy sockets; each made 0700 there):
 * `SVC_PRIVATE_TMP` when given, else the system's temporary directory. Each agent host is given
 * a directory of its own by the daemon (`supervisor/agent-host.ts`), which removes it once the
 * host has exited: a host killed whole (a stop's SIGKILL, a crash) runs no exit handler, and
 * each such host used to leave two or three directories in /tmp for good.
 */
import { tmpdir } from 'node:os';

export const PRIVATE_TMP_ENV = 'SVC_PRIVATE_TMP';

export function privateTmp(): string {
  const given = process.env[PRIVATE_TMP_ENV];
  return given !== undefined && given !== '' ? given : tmpdir();
}
