/**
 * An operation with its deps given: how a resource's `service.ts` assembles its operations (each
 * a named function taking its deps first) into the object the rest of the daemon calls, one line
 * per method.
 */
export function withDeps<D, A extends unknown[], R>(
  deps: D,
  operation: (deps: D, ...args: A) => R,
): (...args: A) => R {
  return (...args) => operation(deps, ...args);
}
