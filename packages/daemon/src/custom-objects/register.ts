/**
 * Registering a custom object: who may register its receiver, its schemas judged, then the row
 * and its `object.registered` event in one transaction. The publish token (and a url receiver's
 * signing secret) are answered here once.
 */
import { stat } from 'node:fs/promises';
import {
  type customObjectRegisterBodySchema,
  type customObjectRegisterResultSchema,
  newId,
} from '@svc/protocol';
import type { z } from 'zod';
import { requireScope } from '../access/scopes.ts';
import { ApiError } from '../errors.ts';
import type { EventLog } from '../events/log.ts';
import type { Principal } from '../ports.ts';
import type { Store } from '../store/index.ts';
import type { EventSchemas } from './event-schemas.ts';
import { mintPublishToken, mintSigningSecret } from './secrets.ts';
import { type CustomObjectRow, type ObjectReceiver, toCustomObject } from './store.ts';

export type RegisterBody = z.output<typeof customObjectRegisterBodySchema>;
export type RegisterResult = z.output<typeof customObjectRegisterResultSchema>;

export async function registerObject(
  deps: { store: Pick<Store, 'db' | 'customObjects'>; events: EventLog; schemas: EventSchemas },
  body: RegisterBody,
  principal: Principal,
): Promise<RegisterResult> {
  const { store, events, schemas } = deps;
  // Who may register this receiver first: the schemas' screen costs the checker time.
  await checkReceiver(body.receiver, principal);
  await schemas.checkAtRegister(body.events);
  const publish = mintPublishToken();
  const signingSecret = body.receiver.kind === 'url' ? mintSigningSecret() : null;
  const catalog = Object.fromEntries(
    Object.entries(body.events).map(([name, decl]) => [
      name,
      { description: decl.description ?? null, schema: decl.schema ?? null },
    ]),
  );
  const row: CustomObjectRow = {
    id: newId('object'),
    name: body.name,
    description: body.description ?? null,
    events: catalog,
    receiver: body.receiver,
    receiver_kind: body.receiver.kind,
    publish_hash: publish.hash,
    signing_secret: signingSecret,
    app_id: principal.appId,
    created_at: new Date().toISOString(),
  };
  const object = store.db.transaction(() => {
    store.customObjects.insert(row);
    const object = toCustomObject(row, 0);
    events.record('object.registered', row.id, { object });
    return object;
  });
  return {
    ...object,
    publish_token: publish.secret,
    ...(signingSecret !== null && { signing_secret: signingSecret }),
  };
}

async function checkReceiver(receiver: ObjectReceiver, principal: Principal): Promise<void> {
  if (receiver.kind === 'queue') return;
  // An argv receiver runs a program on the host, like bash; a url receiver makes the host send
  // requests to any address it reaches, loopback and LAN services included (a request forgery
  // for a token that could not otherwise reach them). Both act on the host: `svc:act`.
  requireScope(
    principal,
    'svc:act',
    receiver.kind === 'argv'
      ? 'an argv receiver runs a program on the host'
      : 'a url receiver makes the host send requests',
  );
  // A token's bash runs in a sandbox built from its ceiling (`bash/confinement.ts`); an argv
  // program runs later, outside any request, with no sandbox to run in: under a token with a
  // ceiling it would run beyond it. Refused rather than run unconfined (docs/security.md). A
  // node's token is not the person either, though an owner's node holds no scope list: its own
  // bash runs in its sandbox.
  if (receiver.kind === 'argv' && principal.kind !== 'owner') {
    throw new ApiError(
      'forbidden',
      "an argv receiver's program would run unconfined, beyond this token's scopes: only the owner may register one (an app can read a queue receiver and run its own program)",
      { field: 'receiver.kind', received: 'argv' },
    );
  }
  // A node's requests leave through its sandbox's network; the daemon's would leave from the
  // host, past it (a node on `none` reaching the loopback).
  if (receiver.kind === 'url' && principal.kind === 'node') {
    throw new ApiError(
      'forbidden',
      "a url receiver's requests would leave from the host, past this node's network: a node may register a queue receiver",
      { field: 'receiver.kind', received: 'url' },
    );
  }
  if (receiver.kind === 'argv' && receiver.cwd !== undefined) {
    const info = await stat(receiver.cwd).catch(() => null);
    if (info === null || !info.isDirectory()) {
      throw new ApiError(
        'validation_failed',
        `receiver.cwd ${JSON.stringify(receiver.cwd)} is not an existing directory`,
        { field: 'receiver.cwd' },
      );
    }
  }
}
