/**
 * The `memory` routes (docs/api-v1.md "Memory"). Any token may call them: reads are not
 * scope-gated but filtered by who calls (SPEC "Scope vocabulary", rule 3), and each write is
 * checked against the caller's memory scopes for the space and path it names.
 */
import { listOf } from '../schemas/common.ts';
import {
  memoryDeleteQuerySchema,
  memoryDeleteResultSchema,
  memoryDocumentSchema,
  memoryDocumentSummarySchema,
  memoryGetQuerySchema,
  memoryListQuerySchema,
  memoryWriteBodySchema,
} from '../schemas/memory.ts';
import type { RouteDef } from './route-def.ts';

const TOKEN = { kind: 'token' } as const;

export const memoryRoutes = [
  {
    id: 'memory.list',
    method: 'GET',
    path: '/v1/memory',
    auth: TOKEN,
    summary:
      "List a space's documents by path, without content, as far as the caller may see them (the person's: public, or every level with svc:memory:manage:user)",
    query: memoryListQuerySchema,
    response: listOf(memoryDocumentSummarySchema),
    page: { cursor: 'path' },
    errors: ['validation_failed', 'scope_missing', 'forbidden'],
  },
  {
    id: 'memory.get',
    method: 'GET',
    path: '/v1/memory/document',
    auth: TOKEN,
    summary: 'Read one document with its content; one the caller may not see answers 404',
    query: memoryGetQuerySchema,
    response: memoryDocumentSchema,
    errors: ['validation_failed', 'scope_missing', 'forbidden', 'not_found'],
  },
  {
    id: 'memory.write',
    method: 'PUT',
    path: '/v1/memory/document',
    auth: TOKEN,
    summary:
      "Create or replace a document (svc:memory:rw:user[:path] for the person's space, svc:memory:rw:app:<id> for another app's)",
    body: memoryWriteBodySchema,
    response: memoryDocumentSchema,
    errors: ['scope_missing', 'forbidden', 'conflict', 'payload_too_large'],
  },
  {
    id: 'memory.delete',
    method: 'DELETE',
    path: '/v1/memory/document',
    auth: TOKEN,
    summary: 'Delete a document, with the rights a write needs',
    query: memoryDeleteQuerySchema,
    response: memoryDeleteResultSchema,
    errors: ['validation_failed', 'scope_missing', 'forbidden', 'not_found', 'conflict'],
  },
] as const satisfies readonly RouteDef[];
