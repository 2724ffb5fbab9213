import { describe, expect, it } from 'vitest';
import { createFetchHandler, definePlugin, type PluginDefinition } from '../src/index.ts';
import { acmeDefinition, get, manifestOf, memoryLogger } from './helpers.ts';

const command = { description: 'd', handler: () => ({}) };
const valid = {
  name: 'acme',
  description: 'd',
  groups: { tickets: { commands: { create: command } } },
};

/** Calls definePlugin with a definition the types would refuse, as plain JavaScript could. */
function define(def: unknown) {
  return () => definePlugin(def as PluginDefinition);
}

describe('definePlugin', () => {
  it('returns the definition itself', () => {
    const def = acmeDefinition();
    expect(definePlugin(def)).toBe(def);
  });

  it('accepts names of the form [a-z][a-z0-9-]*', () => {
    expect(definePlugin({ ...valid, name: 'a1-b2' }).name).toBe('a1-b2');
  });

  it('rejects plugin names outside [a-z][a-z0-9-]*, naming the field', () => {
    for (const name of ['Acme', '1acme', '-acme', 'ac_me', 'ac/me', '', 42]) {
      expect(define({ ...valid, name })).toThrow(TypeError);
      expect(define({ ...valid, name })).toThrow(/plugin\.name/);
    }
  });

  it("rejects the reserved name 'svc': its scopes would read as svc's own", () => {
    expect(define({ ...valid, name: 'svc' })).toThrow(/plugin\.name 'svc' is reserved/);
  });

  it('rejects a bad group name, naming it', () => {
    const def = { ...valid, groups: { Tickets: { commands: { create: command } } } };
    expect(define(def)).toThrow(/plugin\.groups\.Tickets/);
  });

  it('rejects a bad command name, naming it', () => {
    const def = { ...valid, groups: { tickets: { commands: { 'create.v2': command } } } };
    expect(define(def)).toThrow(/commands\.create\.v2/);
  });

  it('rejects a version that is not a positive integer', () => {
    for (const version of [0, -1, 1.5, '2', null]) {
      expect(define({ ...valid, version })).toThrow(/plugin\.version must be a positive integer/);
    }
  });

  it('accepts a positive integer version', () => {
    expect(definePlugin({ ...valid, version: 3 }).version).toBe(3);
  });

  it('rejects an input schema that is not an object', () => {
    for (const input of [true, [], 'string', null]) {
      const def = {
        ...valid,
        groups: { tickets: { commands: { create: { ...command, input } } } },
      };
      expect(define(def)).toThrow(/commands\.create\.input must be a JSON Schema object/);
    }
  });

  it('requires a handler function; a description, when given, is a string', () => {
    const noHandler = {
      ...valid,
      groups: { tickets: { commands: { create: { description: 'd' } } } },
    };
    expect(define(noHandler)).toThrow(/commands\.create\.handler must be a function/);
    const badDescription = {
      ...valid,
      groups: { tickets: { commands: { create: { description: 7, handler: () => ({}) } } } },
    };
    expect(define(badDescription)).toThrow(/commands\.create\.description must be a string/);
    expect(define({ ...valid, description: null })).toThrow(/plugin\.description must be a string/);
  });

  it('takes a plugin and its commands without descriptions: the manifest says ""', async () => {
    const { description: _, ...bare } = valid;
    const plugin = definePlugin({
      ...bare,
      groups: { tickets: { commands: { create: { handler: () => ({}) } } } },
    });
    const handler = createFetchHandler(plugin, { logger: { warn() {} } });
    const manifest = await manifestOf(await handler(get('/')));
    expect(manifest.description).toBe('');
    expect(manifest.commands[0]?.description).toBe('');
  });

  it('refuses a sync generator handler, which no call could answer', () => {
    const def = {
      ...valid,
      groups: {
        tickets: {
          commands: {
            watch: {
              description: 'd',
              *handler() {
                yield { n: 1 };
              },
            },
          },
        },
      },
    };
    expect(define(def)).toThrow(
      /commands\.watch\.handler is a generator function.*async function\*/,
    );
  });

  it('requires at least one group and one command', () => {
    expect(define({ ...valid, groups: {} })).toThrow(/plugin\.groups/);
    expect(define({ ...valid, groups: { tickets: { commands: {} } } })).toThrow(
      /plugin\.groups\.tickets\.commands/,
    );
  });

  it('rejects a non-boolean streaming flag', () => {
    const def = {
      ...valid,
      groups: { tickets: { commands: { create: { ...command, streaming: 'yes' } } } },
    };
    expect(define(def)).toThrow(/streaming must be a boolean/);
  });
});

describe('a list of definitions', () => {
  const v1 = definePlugin({ ...valid, version: 1 });
  const v2 = definePlugin({ ...valid, version: 2 });
  const handler = (list: unknown) => () =>
    createFetchHandler(list as PluginDefinition[], { logger: memoryLogger() });

  it('serves one definition per major', () => {
    expect(typeof handler([v1, v2])()).toBe('function');
  });

  it('rejects an empty list', () => {
    expect(handler([])).toThrow(/empty/);
  });

  it('requires a version on each definition', () => {
    expect(handler([v1, valid])).toThrow(/plugin\[1\]\.version is required/);
  });

  it('rejects two definitions of the same version', () => {
    expect(handler([v1, { ...v2, version: 1 }])).toThrow(/plugin\[1\]\.version 1 appears twice/);
  });

  it('rejects definitions with different names', () => {
    expect(handler([v1, { ...v2, name: 'other' }])).toThrow(/plugin\[1\]\.name must be "acme"/);
  });

  it('rejects an invalid member, naming its index', () => {
    expect(handler([v1, { ...v2, name: 'Bad' }])).toThrow(/plugin\[1\]\.name/);
  });

  it('rejects an input schema the validator cannot use, naming where it is', () => {
    // Two subschemas claiming one $id: the validator refuses the schema when it is compiled.
    const input = { $id: 'https://acme.test/s', properties: { a: { $id: 'https://acme.test/s' } } };
    const unusable = {
      ...valid,
      groups: { tickets: { commands: { create: { ...command, input } } } },
    };
    const at = 'groups.tickets.commands.create.input is not a usable JSON Schema';
    expect(handler(unusable)).toThrow(`plugin.${at}: Duplicate schema URI "https://acme.test/s".`);
    expect(handler([v1, { ...unusable, version: 2 }])).toThrow(`plugin[1].${at}`);
  });
});
