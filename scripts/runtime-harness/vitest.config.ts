// Runs the shim's parity test under real vitest (the root config only collects packages and examples).
import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: { root: `${import.meta.dirname}/../..`, include: ['scripts/runtime-harness/shim.test.ts'] },
});
