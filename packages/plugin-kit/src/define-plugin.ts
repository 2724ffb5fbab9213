/**
 * `definePlugin` checks a definition once, when the module loads, so a typo fails at startup with
 * a `TypeError` naming the field instead of as a 500 on the first call.
 */
import { isGeneratorFunction, isObject } from './is-object.ts';
import { jsonCopy } from './json-copy.ts';
import type { CommandDefinition, GroupDefinition, PluginDefinition } from './types.ts';

/** Plugin, group and command names: they become URL segments and `<plugin>:<group>` scopes. */
const NAME_PATTERN = /^[a-z][a-z0-9-]*$/;

export function definePlugin<const D extends PluginDefinition>(def: D): D {
  validateDefinition(def);
  return def;
}

/**
 * The definitions one handler serves: one unversioned, or one per major with distinct versions;
 * each a copy whose input schemas are snapshots (`snapshotInputs`).
 */
export function validateDefinitions(
  plugin: PluginDefinition | readonly PluginDefinition[],
): readonly PluginDefinition[] {
  if (!Array.isArray(plugin)) {
    validateDefinition(plugin as PluginDefinition);
    return [snapshotInputs(plugin as PluginDefinition, 'plugin')];
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
  return list.map((def, index) => snapshotInputs(def, `plugin[${index}]`));
}

/**
 * A copy of `def`, as it is when the handler is made, whose input schemas are what JSON makes of
 * them. The archive
 * publishes a schema as JSON, and the quick check (`schema-accept.ts`) and the validator must
 * judge by the same keywords: a keyword only inherited, not enumerable, or added after the
 * handler was made would reach one and not the others. The validator also marks the schema
 * objects it is given (`__absolute_uri__`), which a frozen schema refuses and the author's own
 * objects should not carry.
 */
function snapshotInputs(def: PluginDefinition, at: string): PluginDefinition {
  const groups = Object.entries(def.groups).map(([groupName, group]) => {
    const commands = Object.entries(group.commands).map(([commandName, command]) => {
      const inputAt = `${at}.groups.${groupName}.commands.${commandName}.input`;
      // Field by field, as the checks above read them: a command may be a class instance whose
      // handler is its prototype's, which a spread would leave behind.
      const { description, input, streaming, handler } = command;
      const copy: CommandDefinition = {
        ...(description !== undefined && { description }),
        handler,
        ...(streaming !== undefined && { streaming }),
        ...(input !== undefined && { input: jsonCopy(input, inputAt) }),
      };
      return [commandName, copy] as const;
    });
    const description = group.description;
    const copy: GroupDefinition = {
      ...(description !== undefined && { description }),
      commands: Object.fromEntries(commands),
    };
    return [groupName, copy] as const;
  });
  return {
    name: def.name,
    ...(def.description !== undefined && { description: def.description }),
    ...(def.version !== undefined && { version: def.version }),
    groups: Object.fromEntries(groups),
  };
}

function validateDefinition(def: PluginDefinition, at = 'plugin'): void {
  if (!isObject(def)) throw new TypeError(`${at} must be an object`);
  checkName(def.name, `${at}.name`);
  // Its scopes are `<name>:<group>`: a plugin named svc would hold `svc:act` and the like.
  if (def.name === 'svc') throw new TypeError(`${at}.name 'svc' is reserved for svc's own scopes`);
  if (def.version !== undefined && !(Number.isInteger(def.version) && def.version > 0)) {
    throw new TypeError(`${at}.version must be a positive integer, got ${String(def.version)}`);
  }
  if (def.description !== undefined) checkString(def.description, `${at}.description`);
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
      if (command.description !== undefined) {
        checkString(command.description, `${commandAt}.description`);
      }
      if (command.input !== undefined && !isObject(command.input)) {
        throw new TypeError(`${commandAt}.input must be a JSON Schema object`);
      }
      if (command.streaming !== undefined && typeof command.streaming !== 'boolean') {
        throw new TypeError(`${commandAt}.streaming must be a boolean`);
      }
      if (typeof command.handler !== 'function') {
        throw new TypeError(`${commandAt}.handler must be a function`);
      }
      // Its generator is no result the kit can answer, so every call would fail with a 500.
      if (isGeneratorFunction(command.handler)) {
        throw new TypeError(
          `${commandAt}.handler is a generator function: a streaming handler is an async function*`,
        );
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
