import type { EventLog } from '../services/events.ts';
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
    installCredential: withDeps(installCredential, deps),
    removeCredential: withDeps(removeCredential, deps),
    config: () => modelConfig(deps),
    updateConfig: withDeps(updateModelConfig, deps),
    readiness: () => readiness(deps),
    choose: withDeps(chooseModel, deps),
    connection: withDeps(modelConnection, deps),
    requireReady: withDeps(requireReady, deps),
    recordCall: withDeps(recordCall, deps),
  };
}

export type ModelService = ReturnType<typeof modelService>;
