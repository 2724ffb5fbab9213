import { definePlugin } from '@svc/plugin-kit';

type Ticket = { id: string; title: string; opened_by: string | null };
const tickets: Ticket[] = [];

export const plugin = definePlugin({
  name: 'acme',
  description: 'Acme support tickets',
  groups: {
    tickets: {
      description: 'Open and list support tickets',
      commands: {
        create: {
          description: 'Open a ticket',
          input: {
            type: 'object',
            properties: { title: { type: 'string', minLength: 1, maxLength: 200 } },
            required: ['title'],
            additionalProperties: false,
          },
          // Under directory auth `ctx.caller` says who asked; with a shared token it is absent.
          handler: async ({ title }: { title: string }, ctx) => {
            const ticket = {
              id: `T-${tickets.length + 1}`,
              title,
              opened_by: ctx.caller?.sub ?? null,
            };
            tickets.push(ticket);
            return ticket;
          },
        },
        list: {
          description: 'List the open tickets',
          input: { type: 'object', additionalProperties: false },
          handler: async () => ({ data: tickets }),
        },
      },
    },
  },
});
