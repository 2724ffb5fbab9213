import type {
  credentialInstallBodySchema,
  modelChoiceSchema,
  modelConfigBodySchema,
  modelConfigSchema,
  modelCredentialSchema,
  modelReadinessResponseSchema,
} from '@svc/protocol';
import type { z } from 'zod';
import type { EventLog } from '../events/log.ts';
import type { Store } from '../store/index.ts';

export type { ModelRef } from './store.ts';
export type ModelCredential = z.output<typeof modelCredentialSchema>;
export type ModelConfigDto = z.output<typeof modelConfigSchema>;
export type ModelReadiness = z.output<typeof modelReadinessResponseSchema>;
/** A model as a request names it: a provider and model, plus a script for `scripted`. */
export type ModelChoice = z.output<typeof modelChoiceSchema>;
export type InstallBody = z.output<typeof credentialInstallBodySchema>;
export type ConfigBody = z.output<typeof modelConfigBodySchema>;

/** What the models' operations use: their table, and the event log for what they change. */
export interface ModelDeps {
  store: Pick<Store, 'db' | 'models'>;
  events: Pick<EventLog, 'record'>;
}
