/**
 * The daemon's sandbox settings: whether confinement is on (`svc daemon start --sandbox off` is
 * the person's explicit choice to run confined commands bare), what a node holding every scope
 * sees of the person's files, which secret stores stay hidden from every confined command, the
 * default network, and the bounds of one command. Read once at start from the flag and the
 * optional `SVC_HOME/sandbox.json` (docs/security.md, "The sandbox").
 */
import { readFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { join, posix } from 'node:path';
import { type NetworkPolicy, networkPolicySchema } from '@svc/protocol';
import { z } from 'zod';
import { DaemonError } from '../errors.ts';
import { userExecutorCache } from './executor-cache.ts';
import type { Layer } from './view.ts';

export type SandboxMode = 'on' | 'off';
export type { NetworkPolicy };

export interface SandboxSettings {
  mode: SandboxMode;
  /** What a node made with the owner's whole vocabulary (no scope list) sees of the host. */
  defaultLayers: Layer[];
  /**
   * Hidden from every confined command, whatever its scopes bind: secret stores, and the user's
   * cache of the sandbox's executor (no node may swap the binary every sandbox runs).
   */
  hidden: string[];
  /** The network of a confined command unless its profile allows more. */
  network: NetworkPolicy;
  /** Processes (tasks) one command may hold at once, and its memory in bytes. */
  pids: number;
  memoryBytes: number;
}

/**
 * The person's secret stores under their home: keys, keyrings, cloud and registry credentials,
 * browser profiles and shell histories. None is anything an agent's command needs to read.
 */
export const SECRET_STORES = [
  '.ssh',
  '.gnupg',
  '.aws',
  '.azure',
  '.kube',
  '.docker',
  '.netrc',
  '.npmrc',
  '.pypirc',
  '.git-credentials',
  '.password-store',
  '.vault-token',
  '.terraform.d',
  '.config/gcloud',
  '.config/gh',
  '.config/hub',
  '.config/op',
  '.config/rclone',
  '.config/google-chrome',
  '.config/chromium',
  '.mozilla',
  '.local/share/keyrings',
  '.local/share/kwalletd',
  '.bash_history',
  '.zsh_history',
  '.python_history',
  '.node_repl_history',
  '.psql_history',
  '.mysql_history',
];

export const DEFAULT_PIDS = 512;
export const DEFAULT_MEMORY_BYTES = 4 * 1024 ** 3;

const fileSchema = z.strictObject({
  default_mounts: z
    .array(z.strictObject({ path: z.string().startsWith('/'), mode: z.enum(['ro', 'rw']) }))
    .max(256)
    .optional(),
  hide: z.array(z.string().startsWith('/')).max(256).optional(),
  network: networkPolicySchema.optional(),
  pids: z.number().int().min(16).max(1_000_000).optional(),
  memory_mb: z.number().int().min(64).max(1_048_576).optional(),
});

/**
 * The settings for a daemon on `home`: `SVC_HOME/sandbox.json` where it exists (a bad file stops
 * the start, naming what is wrong: a sandbox silently wider than written is worse than none).
 */
export function loadSandboxSettings(home: string, mode: SandboxMode = 'on'): SandboxSettings {
  const person = homedir();
  const file = join(home, 'sandbox.json');
  let text: string | null = null;
  try {
    text = readFileSync(file, 'utf8');
  } catch {
    // No file: the defaults.
  }
  let given: z.output<typeof fileSchema> = {};
  if (text !== null) {
    let json: unknown;
    try {
      json = JSON.parse(text);
    } catch {
      throw new DaemonError('sandbox_config_invalid', `${file} is not JSON`);
    }
    const parsed = fileSchema.safeParse(json);
    if (!parsed.success) {
      throw new DaemonError('sandbox_config_invalid', `${file}: ${z.prettifyError(parsed.error)}`);
    }
    given = parsed.data;
  }
  const defaultLayers: Layer[] = (given.default_mounts ?? [{ path: person, mode: 'ro' }]).map(
    (m) => ({ path: posix.normalize(m.path), kind: m.mode }),
  );
  return {
    mode,
    defaultLayers,
    hidden: [
      ...SECRET_STORES.map((name) => posix.join(person, name)),
      userExecutorCache(),
      ...(given.hide ?? []).map((p) => posix.normalize(p)),
    ],
    network: given.network ?? 'none',
    pids: given.pids ?? DEFAULT_PIDS,
    memoryBytes: (given.memory_mb ?? DEFAULT_MEMORY_BYTES / 1024 ** 2) * 1024 ** 2,
  };
}
