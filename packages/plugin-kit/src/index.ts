export { definePlugin } from './define-plugin.ts';
export { PluginError, type PluginErrorOptions } from './errors.ts';
export { createFetchHandler } from './handler.ts';
export type {
  AuthMode,
  Caller,
  CommandContext,
  CommandDefinition,
  CommandResult,
  FetchHandlerOptions,
  GroupDefinition,
  JsonObject,
  JsonSchema,
  Manifest,
  ManifestCommand,
  PluginDefinition,
} from './types.ts';
