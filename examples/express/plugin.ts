import { definePlugin } from '@svc/plugin-kit';

type Ticket = { id: string; title: string };
const tickets: Ticket[] = [];
const watchers = new Set<(ticket: Ticket) => void>();

export const plugin = definePlugin({
  name: 'acme',
  description: 'Acme support tickets',
  groups: {
    tickets: {
      description: 'Open, list and watch support tickets',
      commands: {
        create: {
          description: 'Open a ticket',
          input: {
            type: 'object',
            properties: { title: { type: 'string', minLength: 1 } },
            required: ['title'],
          },
          handler: async ({ title }: { title: string }) => {
            const ticket = { id: `T-${tickets.length + 1}`, title };
            tickets.push(ticket);
            for (const notify of watchers) notify(ticket);
            return ticket;
          },
        },
        list: {
          description: 'List the open tickets',
          input: { type: 'object' },
          handler: async () => ({ data: tickets }),
        },
        // An async generator streams Server-Sent Events: one `data:` line per yielded item.
        watch: {
          description: 'Stream each ticket opened from now on',
          input: { type: 'object' },
          async *handler(_input, ctx) {
            const opened: Ticket[] = [];
            let wake = () => {};
            const notify = (ticket: Ticket) => {
              opened.push(ticket);
              wake();
            };
            watchers.add(notify);
            ctx.signal.addEventListener('abort', () => wake());
            try {
              yield { watching: true };
              while (!ctx.signal.aborted) {
                yield* opened.splice(0);
                await new Promise<void>((resolve) => {
                  wake = resolve;
                });
              }
            } finally {
              watchers.delete(notify); // the client went away: stop listening
            }
          },
        },
      },
    },
  },
});

export const watcherCount = () => watchers.size;
