import type { EventLog } from '../events/log.ts';
import type { Store } from '../store/index.ts';
import { withDeps } from '../with-deps.ts';
import { chooseModel, modelConfig, updateModelConfig } from './config.ts';
import { modelConnection } from './connection.ts';
import { installCredential, listCredentials, removeCredential } from './credentials.ts';
import { readiness, recordCall, requireReady } from './readiness.ts';
import type { ModelDeps } from './types.ts';

/**
 * Model credentials, the model configuration and readiness: the daemon's only holder of provider
 * keys, as the object the rest of the daemon calls. No answer, event or error carries a key.
 */
export function modelService(store: Store, events: EventLog) {
  const deps: ModelDeps = { store, events };
  return {
    listCredentials: () => listCredentials(deps),
    installCredential: withDeps(deps, installCredential),
    removeCredential: withDeps(deps, removeCredential),
    config: () => modelConfig(deps),
    updateConfig: withDeps(deps, updateModelConfig),
    readiness: () => readiness(deps),
    choose: withDeps(deps, chooseModel),
    connection: withDeps(deps, modelConnection),
    requireReady: withDeps(deps, requireReady),
    recordCall: withDeps(deps, recordCall),
  };
}

export type ModelService = ReturnType<typeof modelService>;
