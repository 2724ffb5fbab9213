/**
 * `definePlugin` checks a definition once, when the module loads, so a typo fails at startup with
 * a `TypeError` naming the field instead of as a 500 on the first call.
 */
import type { PluginDefinition } from './types.ts';

/** Plugin, group and command names: they become URL segments and `<plugin>:<group>` scopes. */
const NAME_PATTERN = /^[a-z][a-z0-9-]*$/;

export function definePlugin<const D extends PluginDefinition>(def: D): D {
  validateDefinition(def);
  return def;
}

/** The definitions one handler serves: one unversioned, or one per major with distinct versions. */
export function validateDefinitions(
  plugin: PluginDefinition | readonly PluginDefinition[],
): readonly PluginDefinition[] {
  if (!Array.isArray(plugin)) {
    validateDefinition(plugin as PluginDefinition);
    return [plugin as PluginDefinition];
  }
  const list = plugin as readonly PluginDefinition[];
  if (list.length === 0) throw new TypeError('plugin: the list of definitions is empty');
  const seen = new Set<number>();
  list.forEach((def, index) => {
    validateDefinition(def, `plugin[${index}]`);
    if (def.version === undefined) {
      throw new TypeError(`plugin[${index}].version is required when several majors are served`);
    }
    if (seen.has(def.version)) {
      throw new TypeError(`plugin[${index}].version ${def.version} appears twice`);
    }
    seen.add(def.version);
    if (def.name !== list[0]?.name) {
      throw new TypeError(
        `plugin[${index}].name must be "${list[0]?.name}" like the other majors, got "${def.name}"`,
      );
    }
  });
  return list;
}

function validateDefinition(def: PluginDefinition, at = 'plugin'): void {
  if (!isObject(def)) throw new TypeError(`${at} must be an object`);
  checkName(def.name, `${at}.name`);
  if (def.version !== undefined && !(Number.isInteger(def.version) && def.version > 0)) {
    throw new TypeError(`${at}.version must be a positive integer, got ${String(def.version)}`);
  }
  checkString(def.description, `${at}.description`);
  if (!isObject(def.groups) || Object.keys(def.groups).length === 0) {
    throw new TypeError(`${at}.groups must be an object with at least one group`);
  }
  for (const [groupName, group] of Object.entries(def.groups)) {
    const groupAt = `${at}.groups.${groupName}`;
    checkName(groupName, `${groupAt} (group name)`);
    if (!isObject(group)) throw new TypeError(`${groupAt} must be an object`);
    if (group.description !== undefined) checkString(group.description, `${groupAt}.description`);
    if (!isObject(group.commands) || Object.keys(group.commands).length === 0) {
      throw new TypeError(`${groupAt}.commands must be an object with at least one command`);
    }
    for (const [commandName, command] of Object.entries(group.commands)) {
      const commandAt = `${groupAt}.commands.${commandName}`;
      checkName(commandName, `${commandAt} (command name)`);
      if (!isObject(command)) throw new TypeError(`${commandAt} must be an object`);
      checkString(command.description, `${commandAt}.description`);
      if (command.input !== undefined && !isObject(command.input)) {
        throw new TypeError(`${commandAt}.input must be a JSON Schema object`);
      }
      if (command.streaming !== undefined && typeof command.streaming !== 'boolean') {
        throw new TypeError(`${commandAt}.streaming must be a boolean`);
      }
      if (typeof command.handler !== 'function') {
        throw new TypeError(`${commandAt}.handler must be a function`);
      }
    }
  }
}

function checkName(value: unknown, at: string): void {
  if (typeof value !== 'string' || !NAME_PATTERN.test(value)) {
    throw new TypeError(`${at} must match ${NAME_PATTERN}, got ${JSON.stringify(value)}`);
  }
}

function checkString(value: unknown, at: string): void {
  if (typeof value !== 'string') throw new TypeError(`${at} must be a string`);
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
