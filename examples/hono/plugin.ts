import { definePlugin } from '@svc/plugin-kit';

const tickets: { id: string; title: string }[] = [];

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
            properties: { title: { type: 'string', minLength: 1 } },
            required: ['title'],
          },
          handler: async ({ title }: { title: string }) => {
            const ticket = { id: `T-${tickets.length + 1}`, title };
            tickets.push(ticket);
            return ticket;
          },
        },
        list: {
          description: 'List the open tickets',
          input: { type: 'object' },
          handler: async () => ({ data: tickets }),
        },
      },
    },
  },
});
