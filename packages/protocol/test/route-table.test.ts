import { readFileSync } from 'node:fs';
import { describe, expect, expectTypeOf, it } from 'vitest';
import type { z } from 'zod';
import { routePathsSource } from '../scripts/route-paths-source.ts';
import {
  type Cron,
  type cronSchema,
  type ListEnvelope,
  type listOf,
  type RouteDef,
  routes,
  VISIBILITIES,
} from '../src/index.ts';

/**
 * List routes whose table entry does not declare its `page` yet: their resources are being
 * moved onto `c.page` one by one, each declaring its page as it goes. Emptied as they land; a
 * route listed here that declares a page fails, so the list only shrinks.
 */
const NOT_YET_DECLARED: readonly string[] = [];

type Def = {
  type: string;
  shape?: Record<string, z.ZodType>;
  element?: z.ZodType;
  options?: z.ZodType[];
};
const defOf = (schema: z.ZodType): Def => (schema as unknown as { _zod: { def: Def } })._zod.def;

/** The item schema of a `listOf(item)` envelope, or undefined when `schema` is not one. */
function listedItem(schema: z.ZodType): z.ZodType | undefined {
  const def = defOf(schema);
  if (def.type !== 'object' || def.shape === undefined) return undefined;
  const keys = Object.keys(def.shape).sort();
  if (keys.join() !== 'data,has_more,next_cursor') return undefined;
  const data = defOf(def.shape.data!);
  return data.type === 'array' ? data.element : undefined;
}

/** The fields every value of `schema` has: an object's keys, those common to a union's options. */
function fieldsOf(schema: z.ZodType): Set<string> {
  const def = defOf(schema);
  if (def.type === 'object') return new Set(Object.keys(def.shape ?? {}));
  if (def.type !== 'union' || def.options === undefined) return new Set();
  const [first, ...rest] = def.options.map(fieldsOf);
  return new Set([...(first ?? [])].filter((field) => rest.every((f) => f.has(field))));
}

const table: readonly RouteDef[] = routes;
const lists = table.filter((r) => listedItem(r.response) !== undefined);

describe('the route table holds to itself', () => {
  it('finds the list envelopes it checks, and the fields of their items', () => {
    expect(lists.map((r) => r.id)).toContain('plugins.list');
    expect(listedItem(table.find((r) => r.id === 'plugins.retrieve')!.response)).toBeUndefined();
    const events = listedItem(table.find((r) => r.id === 'nodes.events')!.response)!;
    expect(fieldsOf(events).has('seq')).toBe(true);
    expect(fieldsOf(events).has('no_such_field')).toBe(false);
  });

  it('declares a page on every list route, but for those not yet declared', () => {
    const missing = lists.filter((r) => r.page === undefined).map((r) => r.id);
    expect(missing.sort()).toEqual([...NOT_YET_DECLARED].sort());
  });

  it('lists in NOT_YET_DECLARED only list routes', () => {
    const listIds = new Set(lists.map((r) => r.id));
    expect(NOT_YET_DECLARED.filter((id) => !listIds.has(id))).toEqual([]);
  });

  it('declares a page only on routes that answer a list envelope', () => {
    const stray = table.filter((r) => r.page !== undefined && listedItem(r.response) === undefined);
    expect(stray.map((r) => r.id)).toEqual([]);
  });

  it("names as each page's cursor a field of the listed object", () => {
    const wrong = table.flatMap((r) => {
      // A null cursor is a position the handler keeps itself, no field of an item.
      if (r.page === undefined || r.page.cursor === null) return [];
      const item = listedItem(r.response);
      const named = item !== undefined && fieldsOf(item).has(r.page.cursor);
      return named ? [] : [`${r.id}: ${r.page.cursor}`];
    });
    expect(wrong).toEqual([]);
  });

  it('uses only the visibility rules route-def.ts documents', () => {
    // The rules as the doc comment above `VISIBILITIES` lists them, so the documentation and
    // the closed set cannot drift apart.
    const source = readFileSync(new URL('../src/routes/route-def.ts', import.meta.url), 'utf8');
    const comment = source.slice(source.indexOf('Whose rows a route shows'));
    const documented = [
      ...comment.slice(0, comment.indexOf('*/')).matchAll(/^ \* - `([a-z-]+)`:/gm),
    ].map((m) => m[1]);
    expect(documented).toEqual([...VISIBILITIES]);
    const rules = new Set<string>(VISIBILITIES);
    const unknown = table.filter((r) => r.visibility !== undefined && !rules.has(r.visibility));
    expect(unknown.map((r) => `${r.id}: ${r.visibility}`)).toEqual([]);
  });

  it('types a list envelope as ListEnvelope of its item', () => {
    type CronList = z.output<ReturnType<typeof listOf<typeof cronSchema>>>;
    expectTypeOf<CronList>().toEqualTypeOf<ListEnvelope<Cron>>();
  });
});

describe("the routes' paths without their schemas (src/routes/paths.ts)", () => {
  it('are the route table’s, written by `npm run gen:paths -w @svc/protocol`', () => {
    const file = readFileSync(new URL('../src/routes/paths.ts', import.meta.url), 'utf8');
    expect(file).toBe(routePathsSource());
  });
});
