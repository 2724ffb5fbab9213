import type { ConfigBody, ModelChoice, ModelConfigDto, ModelDeps } from './types.ts';

/** The model configuration: the default model and the owner's model of each profile. */
export function modelConfig(deps: Pick<ModelDeps, 'store'>): ModelConfigDto {
  const row = deps.store.models.config();
  if (row === undefined) return { default: null, profiles: {}, updated_at: null };
  return { default: row.default_model, profiles: row.profiles, updated_at: row.updated_at };
}

export function updateModelConfig(deps: ModelDeps, body: ConfigBody): ModelConfigDto {
  const { store, events } = deps;
  return store.db.transaction(() => {
    store.models.setConfig({
      default_model: body.default,
      profiles: body.profiles ?? {},
      updated_at: new Date().toISOString(),
    });
    const dto = modelConfig(deps);
    events.record('model_config.updated', null, dto);
    return dto;
  });
}

/**
 * The model a node or call uses: the request's, then the owner's override for the profile,
 * then the profile's own, then the configured default; `null` when none is set.
 */
export function chooseModel(
  deps: Pick<ModelDeps, 'store'>,
  requested: ModelChoice | undefined,
  profile: { name: string; model: ModelChoice | null } | undefined,
): ModelChoice | null {
  const { default: fallback, profiles } = modelConfig(deps);
  return (
    requested ??
    (profile === undefined ? undefined : profiles[profile.name]) ??
    profile?.model ??
    fallback
  );
}
