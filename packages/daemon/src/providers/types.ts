import type { ProviderCallResult, providerCallBodySchema } from '@svc/protocol';
import type { z } from 'zod';
import type { DirectoryService } from '../directory/service.ts';
import type { ProfileService } from '../profiles/service.ts';
import type { Store } from '../store/index.ts';

export type CallBody = z.output<typeof providerCallBodySchema>;

/** What the providers' operations use. */
export interface ProviderDeps {
  store: Pick<Store, 'nodes' | 'plugins'>;
  profiles: Pick<ProfileService, 'settings' | 'envValues' | 'find'>;
  directory: Pick<DirectoryService, 'mint' | 'mintForCaller'>;
}

/** A plugin's refusal as the caller gets it: the plugin's status and envelope. */
export interface ProviderRefusal {
  status: number;
  error: { code: string; message: string; field?: string; received?: unknown };
}

export type ProviderCallAnswer =
  | { ok: true; result: ProviderCallResult }
  | { ok: false; refusal: ProviderRefusal };
