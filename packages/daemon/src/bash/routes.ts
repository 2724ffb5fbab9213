import { mount, type Routes } from '../http/route.ts';
import { type ConfinementDeps, confinementOf } from './confinement.ts';
import { runBash } from './run.ts';

export interface BashRouteDeps extends ConfinementDeps {
  /** Aborted when the drain gives up waiting: a running command is killed then. */
  hardStop: AbortSignal;
}

export function registerBashRoutes(app: Routes, deps: BashRouteDeps): void {
  mount(app, 'bash.run', async (c, { body }) =>
    c.json(await runBash(body, deps.hardStop, confinementOf(deps, c.principal!))),
  );
}
