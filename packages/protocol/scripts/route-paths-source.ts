import { routes } from '../src/routes/table.ts';

/** The text of `src/routes/paths.ts` as the route table has it now. */
export function routePathsSource(): string {
  const entries = routes.map((r) => `  ${JSON.stringify(r.id).replaceAll('"', "'")}: '${r.path}',`);
  return `/**
 * Each route's path by its id: the route table's paths without its schemas, so that a client
 * that only calls (\`pathOf\`, the CLI's \`svc status\`) loads no zod. Written by
 * \`npm run gen:paths -w @svc/protocol\` from the table; \`test/route-table.test.ts\` holds the two
 * equal.
 */
import type { RouteId } from './table.ts';

export const routePaths: Readonly<Record<RouteId, string>> = {
${entries.join('\n')}
};
`;
}
