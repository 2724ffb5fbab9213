/**
 * A custom object's event schemas: judged when the object is registered (the plugin kit's rules,
 * then each pattern proven free of super-linear backtracking), compiled on an event's first
 * publish and kept, since an object's catalog never changes.
 */
import { compileSchema, type SchemaCheck } from '@svc/plugin-kit/json-schema';
import { ApiError } from '../errors.ts';
import { compileUsable } from '../nodes/output-schema.ts';
import { screenPatterns } from '../schema-check/pattern-safety.ts';
import type { CustomObjectRow } from './store.ts';

/** A declared event, as registered (`schema` omitted) or stored (`null`). */
type EventDecl = { schema?: Record<string, unknown> | null | undefined };

export function eventSchemas() {
  /** Compiled checks by object, then event (`null`: the event declares no schema). */
  const checks = new Map<string, Map<string, SchemaCheck | null>>();

  const schemaOf = (row: CustomObjectRow, event: string) => row.events[event]?.schema ?? null;

  /**
   * A schema taken at registration that can no longer be applied (the kit's rules or the
   * pattern screen grew since): the object must be registered again, not 500.
   */
  function noLongerApplies(event: string, why: string): ApiError {
    return new ApiError(
      'invalid_state',
      `the schema of event ${event} can no longer be applied (${why}); register the object again`,
      { field: 'event' },
    );
  }

  return {
    /** Each declared schema, as registration takes it: 400 `invalid_request` naming it. */
    async checkAtRegister(events: Record<string, EventDecl>): Promise<void> {
      for (const [name, decl] of Object.entries(events)) {
        if (decl.schema === undefined || decl.schema === null) continue;
        const at = `events.${name}.schema`;
        compileUsable(decl.schema, at);
        // Every publish matches these patterns on the daemon's thread, with a publisher's strings.
        await screenPatterns(decl.schema, at);
      }
    },

    /**
     * Screens an event's stored schema before its check is first made: one stored before the
     * daemon screened patterns would otherwise match a backtracking pattern on every publish.
     * Once made, the check is kept, so this waits on nothing after the first publish.
     */
    async screenStored(row: CustomObjectRow, event: string): Promise<void> {
      if (checks.get(row.id)?.has(event) === true) return;
      try {
        await screenPatterns(schemaOf(row, event), `events.${event}.schema`);
      } catch (error) {
        if (!(error instanceof ApiError)) throw error;
        throw noLongerApplies(event, error.message);
      }
    },

    /** The event's check, compiled on first use; `null` when it declares no schema. */
    checkFor(row: CustomObjectRow, event: string): SchemaCheck | null {
      let byEvent = checks.get(row.id);
      if (byEvent === undefined) {
        byEvent = new Map();
        checks.set(row.id, byEvent);
      }
      if (!byEvent.has(event)) {
        const schema = schemaOf(row, event);
        let check: SchemaCheck | null = null;
        if (schema !== null) {
          try {
            check = compileSchema(schema, `events.${event}.schema`);
          } catch (error) {
            throw noLongerApplies(
              event,
              error instanceof TypeError ? error.message : String(error),
            );
          }
        }
        byEvent.set(event, check);
      }
      return byEvent.get(event) ?? null;
    },

    /** An unregistered object's checks go with it. */
    forget(objectId: string): void {
      checks.delete(objectId);
    },
  };
}

export type EventSchemas = ReturnType<typeof eventSchemas>;
