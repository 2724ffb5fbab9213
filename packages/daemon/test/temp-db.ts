import { rmSync } from 'node:fs';
import { afterAll } from 'vitest';
import { tempHome } from './helpers.ts';

/** Paths of fresh `svc.db` files, each in a home of its own, removed after the file's tests. */
export function tempDbPaths(): () => string {
  const homes: string[] = [];
  afterAll(() => {
    for (const home of homes) rmSync(home, { recursive: true, force: true });
  });
  return () => {
    const home = tempHome();
    homes.push(home);
    return `${home}/svc.db`;
  };
}
