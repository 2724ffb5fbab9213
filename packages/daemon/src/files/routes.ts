import { posix } from 'node:path';
import type { Scope } from '@svc/protocol';
import type { Call } from '../http/call.ts';
import { mount, type Routes } from '../http/route.ts';
import { writeNotesDir } from '../nodes/workspace/write-notes.ts';
import type { Principal } from '../ports.ts';
import { privateTmp } from '../sandbox/private-tmp.ts';
import { type FilesAccess, realHome } from './access.ts';
import { listDirectory } from './list.ts';
import { readFileSlice } from './read.ts';
import { resolve } from './resolve.ts';
import { writeFileAtomic } from './write.ts';

export interface FilesRouteDeps {
  /** The daemon's home: fenced from every caller but the owner's token. */
  home: string;
  /** What every sandbox hides (`SandboxSettings.hidden`): fenced as the home is. */
  sandbox: { settings: { hidden: readonly string[] } };
  /** The caller's files scopes with the live shares made to its app (`null`: every path). */
  shares: { filesScopes(principal: Principal): readonly Scope[] | null };
}

export function registerFilesRoutes(app: Routes, deps: FilesRouteDeps): void {
  /**
   * The caller's files scopes: the owner's `null` reaches every path; an app's token also holds
   * what the live shares made to its app grant (docs/api-v1.md "Shares"). Every path is still
   * checked by its realpath against these. A refusal's `received` is the token's own list, as
   * every `scope_missing`'s: a share is no scope of the token.
   */
  let home: string | undefined; // resolved on the first request, when the home exists
  const pending = writeNotesDir(deps.home);
  const access = async (c: Call): Promise<FilesAccess> => {
    const principal = c.principal!;
    const scopes = deps.shares.filesScopes(principal);
    // Only the owner's own token is the person. A viewer session acts as the owner but is fenced
    // as a scoped token is (no page script reads the owner token through it), and so is a node's
    // token though it hold every scope: its agent's own shell sees none of this either.
    if (principal.kind === 'owner' && c.viewerSession === null) return { scopes, pending };
    home ??= realHome(deps.home);
    const hidden = await hiddenFences(deps.sandbox.settings.hidden);
    return { scopes, received: principal.scopes ?? [], home, hidden, pending };
  };

  mount(app, 'files.read', async (c, { query }) =>
    c.json(await readFileSlice(query, await access(c))),
  );
  mount(app, 'files.write', async (c, { body }) =>
    c.json(await writeFileAtomic(body, await access(c))),
  );
  mount(app, 'files.list', async (c, { query }) =>
    c.json(await listDirectory(query, await access(c))),
  );
}

/**
 * `hidden` and this process's private temporary directory as the checks see a request's path: as
 * written and where each leads now (a store made, moved or linked elsewhere since the start, or a
 * link to one not yet made), so a fenced path answers alike whether or not it exists. Resolved at
 * each request, as a sandbox plan resolves its hides at each launch.
 */
async function hiddenFences(hidden: readonly string[]): Promise<readonly string[]> {
  return (await Promise.all([...hidden, privateTmp()].map(bothWays))).flat();
}

async function bothWays(path: string): Promise<string[]> {
  const written = posix.normalize(path);
  // One that cannot be resolved (a directory on the way not searchable) is fenced as written.
  const real = await resolve(written, written).then(
    (r) => r.path,
    () => written,
  );
  return real === written ? [written] : [written, real];
}
