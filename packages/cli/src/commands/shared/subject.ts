/**
 * What `svc node` and `svc run` share. A run is a view over the node tree it owns, so its
 * commands are the node's over the run's routes: showing, watching, waiting, mail and stopping
 * are written once here, and each side (`NODE`, `RUN`) says only where its routes differ.
 */
import type { Mail, NodeEvent, Svc } from '@svc/client';
import type { Context } from '../../context.ts';
import { EXIT } from '../../errors.ts';
import type { Palette } from '../../output/color.ts';
import { feed } from '../../output/event-feed.ts';
import { parseId } from '../../parse/id.ts';
import { type WaitTarget, waitWithProgress } from './wait-progress.ts';

type Shown = { id: string; state: string };
type Waited = { final: boolean };

export interface Subject<S extends Shown, A extends Waited> {
  /** The id's kind and the command's name. */
  noun: 'node' | 'run';
  /** Its events, backlog then live (with `subtree`, a node's descendants' too; a run's always). */
  stream(
    client: Svc,
    id: string,
    subtree: boolean,
    options: { after?: number; signal: AbortSignal },
  ): AsyncIterable<NodeEvent>;
  /** The event that says `id` is final. */
  isOutcome(id: string): (event: NodeEvent) => boolean;
  /** The node whose waits decide whether it can still end: a node itself, a run's root. */
  rootNode(client: Svc, id: string): Promise<string>;
  retrieve(client: Svc, id: string, signal?: AbortSignal): Promise<S>;
  /** One daemon wait of at most `timeoutS`, `{ final, node | run }`. */
  waitOnce(client: Svc, id: string, timeoutS: number, signal: AbortSignal): Promise<A>;
  /** The answer of a wait that ended without the outcome. */
  notFinal(subject: S): A;
  subjectOf(answer: A): S;
  stop(
    client: Svc,
    verb: 'cancel' | 'interrupt',
    id: string,
    params: { reason?: string },
  ): Promise<S>;
  render(subject: S, colors: Palette): string;
}

/** An id of the subject's kind, else a usage error naming `what` (default: the `<id>` argument). */
function subjectId(kind: { noun: 'node' | 'run' }, value: string, what?: string): string {
  return parseId(kind.noun, value, what);
}

/** Its fields for a person; the DTO itself under `--json`. */
export function printSubject<S extends Shown, A extends Waited>(
  ctx: Context,
  kind: Subject<S, A>,
  subject: S,
): number {
  ctx.out.result(subject, (colors) => kind.render(subject, colors));
  return EXIT.ok;
}

/** `svc node|run show`. */
export async function showSubject<S extends Shown, A extends Waited>(
  ctx: Context,
  kind: Subject<S, A>,
  id: string,
): Promise<number> {
  const client = await ctx.client();
  return printSubject(ctx, kind, await kind.retrieve(client, subjectId(kind, id)));
}

/** What `svc node|run wait` (and `create|start --wait`, `parse`) waits on: the outcome. */
export function waitTarget<S extends Shown, A extends Waited>(
  kind: Subject<S, A>,
  id: string,
  timeout: number,
): WaitTarget<A, S> {
  return {
    stream: (client, signal) => kind.stream(client, id, true, { signal }),
    isOutcome: kind.isOutcome(id),
    node: (client) => kind.rootNode(client, id),
    wait: (client, signal) => kind.waitOnce(client, id, timeout, signal),
    subject: (answer) => kind.subjectOf(answer),
    stopped: async (client, signal) => kind.notFinal(await kind.retrieve(client, id, signal)),
    render: (subject, colors) => kind.render(subject, colors),
    again: `svc ${kind.noun} wait ${id}`,
  };
}

/** Waits for `id`'s outcome while the events of its tree stream to stderr as progress. */
export function waitOn<S extends Shown, A extends Waited>(
  ctx: Context,
  kind: Subject<S, A>,
  id: string,
  timeout: number,
): Promise<number> {
  return waitWithProgress(ctx, id, timeout, waitTarget(kind, id, timeout));
}

/** `svc node|run watch`: prints the events live until the outcome. */
export async function watchSubject<S extends Shown, A extends Waited>(
  ctx: Context,
  kind: Subject<S, A>,
  id: string,
  opts: { after: number; subtree: boolean },
): Promise<number> {
  const client = await ctx.client();
  const controller = new AbortController();
  const { signal } = controller;
  // The daemon ends the stream once the subject is settled, even when --after lies past its
  // outcome.
  const stream = kind.stream(client, id, opts.subtree, { after: opts.after, signal });
  await feed(ctx, stream, kind.isOutcome(id), { signal });
  return EXIT.ok;
}

/** `svc node message`, `svc run message|reply`: sends the mail and says so. */
export async function sendMail(
  ctx: Context,
  id: string,
  send: (client: Svc) => Promise<Mail>,
): Promise<number> {
  const client = await ctx.client();
  const mail = await send(client);
  ctx.out.result(mail, () => `sent mail #${mail.seq} to ${id}`);
  return EXIT.ok;
}

/** `svc node|run cancel|interrupt`: prints the subject as the stop left it. */
export async function stopSubject<S extends Shown, A extends Waited>(
  ctx: Context,
  kind: Subject<S, A>,
  verb: 'cancel' | 'interrupt',
  id: string,
  opts: { reason?: string },
): Promise<number> {
  const client = await ctx.client();
  const params = opts.reason === undefined ? {} : { reason: opts.reason };
  return printSubject(ctx, kind, await kind.stop(client, verb, subjectId(kind, id), params));
}
