import type { NodeRuntime } from '../ports.ts';

/** Used until a supervisor is plugged in: nodes queue and nothing runs them. */
export const idleRuntime: NodeRuntime = Object.freeze({
  wake() {},
  stop: () => Promise.resolve(),
});
