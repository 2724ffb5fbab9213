/**
 * A zod schema as the OpenAPI document shows it: JSON Schema 2020-12 (OpenAPI 3.1's dialect),
 * which `z.toJSONSchema` emits, with answers left open and the wire forms of `schemas/wire-form.ts`.
 * Requests are described on the input side of each schema (what goes on the wire), answers on the
 * output side.
 */
import { z } from 'zod';
import { wireForms } from './schemas/wire-form.ts';

export type JsonObject = Record<string, unknown>;

export function jsonSchema(schema: z.ZodType, io: 'input' | 'output'): JsonObject {
  const { $schema: _dialect, ...rest } = z.toJSONSchema(schema, {
    io,
    unrepresentable: 'any',
    override: (ctx) => {
      if (io === 'output') openAnswerObjects(ctx);
      wireForm(ctx);
    },
  });
  return rest;
}

/** What `shownAs` and `checkedAs` (schemas/wire-form.ts) say of a schema. */
function wireForm(ctx: { zodSchema: unknown; jsonSchema: JsonObject }): void {
  const form = wireForms.get(ctx.zodSchema as z.ZodType);
  if (form === undefined) return;
  if (form.replace) {
    for (const key of Object.keys(ctx.jsonSchema)) {
      if (key !== 'description') delete ctx.jsonSchema[key];
    }
  }
  Object.assign(ctx.jsonSchema, form.schema);
}

/**
 * zod marks a plain object's output closed (`additionalProperties: false`) because parsing
 * strips unknown keys. An answer must stay open instead: `/v1` only grows (DESIGN §6), and a
 * client validating against this document must accept fields a newer daemon adds. Strict
 * objects (request bodies) keep their `false`.
 */
function openAnswerObjects(ctx: { zodSchema: unknown; jsonSchema: JsonObject }): void {
  const def = (ctx.zodSchema as { _zod: { def: { type: string; catchall?: unknown } } })._zod.def;
  if (def.type === 'object' && def.catchall === undefined)
    delete ctx.jsonSchema.additionalProperties;
}
