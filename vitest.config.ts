import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['packages/*/test/**/*.test.ts', 'examples/*/test/**/*.test.ts', 'test/**/*.test.ts'],
    pool: 'forks',
    globalSetup: ['test/support/private-tmp-setup.ts'],
    testTimeout: 20_000,
    hookTimeout: 30_000,
  },
});
