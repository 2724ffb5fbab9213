import { listDirectory, readFileSlice, writeFileAtomic } from '../services/files.ts';
import type { Call } from './call.ts';
import { mount, type Routes } from './route.ts';

/** The caller's files scopes; the owner's `null` reaches every path. */
const access = (c: Call) => ({ scopes: c.principal!.scopes });

export function registerFiles(app: Routes): void {
  mount(app, 'files.read', async (c, { query }) => c.json(await readFileSlice(query, access(c))));
  mount(app, 'files.write', async (c, { body }) => c.json(await writeFileAtomic(body, access(c))));
  mount(app, 'files.list', async (c, { query }) => c.json(await listDirectory(query, access(c))));
}
