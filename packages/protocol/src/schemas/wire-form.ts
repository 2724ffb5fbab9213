/**
 * How the OpenAPI document shows a schema whose zod form is not what a client sends or checks:
 * a query integer zod reads as a decimal string is an `integer` to a client generated from the
 * document (OpenAPI serialises it), and a check zod makes in a `.refine` (each item once, at
 * least one key, a scope's grammar) has a JSON Schema keyword a client can check before sending.
 */
import { z } from 'zod';

export type JsonSchemaObject = Record<string, unknown>;

/** A schema's JSON Schema in the document, in place of what zod derives (`replace`) or beside it. */
export interface WireForm {
  schema: JsonSchemaObject;
  /** true: the zod-derived keywords are dropped (but `description`); else `schema` is merged in. */
  replace?: true;
}

export const wireForms = z.registry<WireForm>();

/** `schema`, shown in the OpenAPI document as `form` instead of what zod derives from it. */
export function shownAs<T extends z.ZodType>(schema: T, form: JsonSchemaObject): T {
  wireForms.add(schema, { schema: form, replace: true });
  return schema;
}

/** `schema`, with JSON Schema keywords its `.refine` checks added in the OpenAPI document. */
export function checkedAs<T extends z.ZodType>(schema: T, keywords: JsonSchemaObject): T {
  wireForms.add(schema, { schema: keywords });
  return schema;
}
