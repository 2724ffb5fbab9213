/**
 * Start-up and wake on an idle daemon (`nodes.ts`), one node at a time: create → its first turn
 * started; and a parked node (its broker gone) woken to its next turn started, by each thing that
 * wakes one: a message, a child's outcome, a human's answer.
 */
import { type BenchDaemon, type EventDto, watch } from './nodes-client.ts';
import { idle, SCRIPTED, scriptedNode, TIMEOUT_MS } from './nodes-turns.ts';

const PARKING_SCRIPT = [
  { tool_calls: [{ name: 'yield', input: { reason: 'bench: parked until woken' } }] },
  { tool_calls: [{ name: 'submit', input: { summary: 'woken' } }] },
];
/** The child parks first, so its parent is parked on it before the bench lets it end. */
const CHILD_SCRIPT = [
  { tool_calls: [{ name: 'yield', input: { reason: 'bench: until told to end' } }] },
  { tool_calls: [{ name: 'submit', input: { summary: 'child done' } }] },
];
const PARENT_SCRIPT = [
  {
    tool_calls: [
      {
        name: 'spawn',
        input: { task: 'bench child', model: { ...SCRIPTED, script: CHILD_SCRIPT } },
      },
    ],
  },
  { tool_calls: [{ name: 'wait', input: {} }] },
  { tool_calls: [{ name: 'submit', input: { summary: 'parent done' } }] },
];
const ASKING_SCRIPT = [
  { tool_calls: [{ name: 'ask_human', input: { title: 'bench: go on?', body: 'a bench run' } }] },
  { tool_calls: [{ name: 'submit', input: { summary: 'answered' } }] },
];

export interface Startups {
  /** create → first turn started (ms), one per node. */
  first: number[];
  /** A message to a parked node → its next turn started. */
  wake: number[];
  /** A child's outcome recorded → its parked parent's next turn started. */
  child: number[];
  /** A human request answered → its parked asker's next turn started. */
  human: number[];
}

/**
 * `count` rounds, each on an idle daemon: a node created and parked, then woken by a message;
 * then (unless `count` of them is 0) `wakes` parents woken by their child's outcome and `wakes`
 * askers woken by an answer.
 */
export async function runStartups(
  daemon: BenchDaemon,
  home: string,
  count: number,
  wakes: number,
): Promise<Startups> {
  // Every event since the round began, so one that came before its waiter is found too.
  const seen: EventDto[] = [];
  const waiters = new Set<(e: EventDto) => void>();
  const stream = watch(daemon, home, (watched) => {
    const event = watched.dto();
    seen.push(event);
    for (const waiter of waiters) waiter(event);
  });
  await stream.ready;
  const next = (match: (e: EventDto) => boolean) =>
    new Promise<EventDto>((resolve, reject) => {
      const found = seen.find(match);
      if (found !== undefined) return resolve(found);
      const timer = setTimeout(() => reject(new Error('no such event in time')), TIMEOUT_MS);
      const waiter = (e: EventDto) => {
        if (!match(e)) return;
        clearTimeout(timer);
        waiters.delete(waiter);
        resolve(e);
      };
      waiters.add(waiter);
    });
  const startedAt = (e: EventDto) =>
    Date.parse((e.payload.turn as { started_at: string }).started_at);
  const turnOf = (id: string, index: number) => (e: EventDto) =>
    e.subject_id === id &&
    e.kind === 'node.turn' &&
    (e.payload.turn as { index: number }).index === index;
  const stateOf = (id: string, to: string) => (e: EventDto) =>
    e.subject_id === id && e.kind === 'node.state' && e.payload.to === to;
  const outcomeOf = (id: string) => (e: EventDto) =>
    e.subject_id === id && e.kind === 'node.outcome';
  const toolOf = (id: string, name: string) => (e: EventDto) =>
    e.subject_id === id &&
    e.kind === 'node.tool' &&
    (e.payload.tool_call as { name: string } | undefined)?.name === name;
  const toolOutput = (e: EventDto) =>
    (e.payload.tool_call as { output: Record<string, unknown> }).output;
  const create = async (task: string, script: readonly unknown[]) =>
    (await daemon.call('/v1/nodes', { method: 'POST', body: scriptedNode(task, script) }))
      .id as string;
  const post = (path: string, body: unknown) => daemon.call(path, { method: 'POST', body });

  const result: Startups = { first: [], wake: [], child: [], human: [] };
  for (let i = 0; i < count; i++) {
    await idle(daemon);
    seen.length = 0;
    const t0 = Date.now();
    const id = await create(`bench start ${i}`, PARKING_SCRIPT);
    result.first.push(startedAt(await next(turnOf(id, 1))) - t0);
    await next(stateOf(id, 'waiting'));
    await idle(daemon);
    const t1 = Date.now();
    await post(`/v1/nodes/${id}/messages`, { text: 'wake up' });
    result.wake.push(startedAt(await next(turnOf(id, 2))) - t1);
    await next(outcomeOf(id));
  }

  for (let i = 0; i < wakes; i++) {
    // A parent parked on its child (`wait`), the child parked too; a message ends the child.
    await idle(daemon);
    seen.length = 0;
    const parent = await create(`bench parent ${i}`, PARENT_SCRIPT);
    const child = toolOutput(await next(toolOf(parent, 'spawn'))).node_id as string;
    await next(turnOf(parent, 2));
    await next(stateOf(parent, 'waiting'));
    await next(stateOf(child, 'waiting'));
    await idle(daemon);
    await post(`/v1/nodes/${child}/messages`, { text: 'end now' });
    const ended = Date.parse((await next(outcomeOf(child))).created_at);
    result.child.push(startedAt(await next(turnOf(parent, 3))) - ended);
    await next(outcomeOf(parent));

    // A node parked on its question to the person, then answered.
    await idle(daemon);
    seen.length = 0;
    const asker = await create(`bench asker ${i}`, ASKING_SCRIPT);
    await next(stateOf(asker, 'waiting'));
    await idle(daemon);
    const request = toolOutput(await next(toolOf(asker, 'ask_human'))).request_id as string;
    const t2 = Date.now();
    await post(`/v1/human/requests/${request}/respond`, { text: 'yes' });
    result.human.push(startedAt(await next(turnOf(asker, 2))) - t2);
    await next(outcomeOf(asker));
  }
  stream.close();
  return result;
}
