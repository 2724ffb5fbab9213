import type { Scope } from '@svc/protocol';
import type { Call } from '../http/call.ts';
import { mount, type Routes } from '../http/route.ts';
import { writeNotesDir } from '../nodes/workspace/write-notes.ts';
import type { Principal } from '../ports.ts';
import { type FilesAccess, realHome } from './access.ts';
import { listDirectory } from './list.ts';
import { readFileSlice } from './read.ts';
import { writeFileAtomic } from './write.ts';

export interface FilesRouteDeps {
  /** The daemon's home: fenced from every caller but the owner's token. */
  home: string;
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
  const access = (c: Call): FilesAccess => {
    const principal = c.principal!;
    const scopes = deps.shares.filesScopes(principal);
    // A viewer session acts as the owner but is fenced as a scoped token is: no page script
    // reads the owner token or the database through it.
    if (principal.scopes === null && c.viewerSession === null) return { scopes, pending };
    home ??= realHome(deps.home);
    return { scopes, received: principal.scopes ?? [], home, pending };
  };

  mount(app, 'files.read', async (c, { query }) => c.json(await readFileSlice(query, access(c))));
  mount(app, 'files.write', async (c, { body }) => c.json(await writeFileAtomic(body, access(c))));
  mount(app, 'files.list', async (c, { query }) => c.json(await listDirectory(query, access(c))));
}
