import type { Plugin } from '@svc/protocol';

/** An event's payload: what changed, not every input schema again (those are in the record). */
export function summary(plugin: Plugin) {
  return {
    plugin: plugin.name,
    origin: plugin.origin,
    major: plugin.major,
    auth: plugin.auth,
    commands: plugin.commands.length,
  };
}
