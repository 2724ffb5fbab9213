/**
 * Writes `src/routes/paths.ts`, each route's path by its id, from the route table:
 * `npm run gen:paths -w @svc/protocol`. `test/route-table.test.ts` fails when the file and the
 * table differ, so a route added or moved asks for a run of this.
 */
import { writeFileSync } from 'node:fs';
import { routePathsSource } from './route-paths-source.ts';

writeFileSync(new URL('../src/routes/paths.ts', import.meta.url), routePathsSource());
