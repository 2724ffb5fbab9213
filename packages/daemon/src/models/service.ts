import type { EventLog } from '../services/events.ts';
import type { Store } from '../store/index.ts';
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
    installCredential: bind(installCredential, deps),
    removeCredential: bind(removeCredential, deps),
    config: () => modelConfig(deps),
    updateConfig: bind(updateModelConfig, deps),
    readiness: () => readiness(deps),
    choose: bind(chooseModel, deps),
    connection: bind(modelConnection, deps),
    requireReady: bind(requireReady, deps),
    recordCall: bind(recordCall, deps),
  };
}

export type ModelService = ReturnType<typeof modelService>;

/** `operation` with its deps given: the method the service object offers. */
function bind<D, A extends unknown[], R>(
  operation: (deps: D, ...args: A) => R,
  deps: D,
): (...args: A) => R {
  return (...args) => operation(deps, ...args);
}
