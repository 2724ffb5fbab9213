import type { Budgets, NetworkPolicy, profileEnsureBodySchema, profileSchema } from '@svc/protocol';
import type { z } from 'zod';
import type { EventLog } from '../events/log.ts';
import type { Store } from '../store/index.ts';
import type { ModelChoice, ProfileWorkspace } from './store.ts';

export type { ProfileWorkspace } from './store.ts';
export type Profile = z.output<typeof profileSchema>;
export type EnsureBody = z.output<typeof profileEnsureBodySchema>;

/** A profile as nodes and model calls use it: the full model choice, script included. */
export interface ProfileSettings {
  name: string;
  model: ModelChoice | null;
  system_prompt: string | null;
  tools: string[] | null;
  scopes: string[] | null;
  budgets: Budgets;
  /** Its nodes' default git workspace, checked at each create; `null`: plain directories. */
  workspace: ProfileWorkspace | null;
  /** Its nodes' sandbox network; `null` = the daemon's default. */
  network: NetworkPolicy | null;
  /** Names from its env store its nodes' sandboxed commands get in their environment. */
  command_env: string[];
  app_id: string | null;
}

/** What the profiles' operations use: their tables, and the event log for what they change. */
export interface ProfileDeps {
  store: Pick<Store, 'db' | 'profiles'>;
  events: Pick<EventLog, 'record'>;
  /**
   * After the commit of a change to profile `name`'s settings or env store: what its running
   * nodes were launched with may no longer hold (`ProfileService.onChange`).
   */
  changed?: (name: string) => void;
}
