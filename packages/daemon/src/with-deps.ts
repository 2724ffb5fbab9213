/**
 * `operation` with its deps given: how a resource's `service.ts` offers its operations (each a
 * named function taking the deps it uses first) as the methods the rest of the daemon calls.
 */
export function withDeps<D, A extends unknown[], R>(
  operation: (deps: D, ...args: A) => R,
  deps: D,
): (...args: A) => R {
  return (...args) => operation(deps, ...args);
}
