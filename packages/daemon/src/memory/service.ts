/**
 * Memory (docs/api-v1.md "Memory"): documents in spaces, read through a filter of who calls and
 * written through a check of its scopes (`visibility.ts`). Every write is one transaction with
 * its `memory.document` event.
 */
import type { Principal } from '../ports.ts';
import { deleteDocument } from './delete.ts';
import type { MemoryDeps, MemoryDocumentRef } from './documents.ts';
import { getDocument } from './get.ts';
import { listDocuments, type MemoryListFilter } from './list.ts';
import { type MemoryWriteBody, writeDocument } from './write.ts';

export function memoryService(deps: MemoryDeps) {
  return {
    list: (principal: Principal, f: MemoryListFilter) => listDocuments(deps, principal, f),
    get: (principal: Principal, ref: MemoryDocumentRef) => getDocument(deps, principal, ref),
    write: (principal: Principal, body: MemoryWriteBody) => writeDocument(deps, principal, body),
    delete: (principal: Principal, ref: MemoryDocumentRef) => deleteDocument(deps, principal, ref),
  };
}

export type MemoryService = ReturnType<typeof memoryService>;
