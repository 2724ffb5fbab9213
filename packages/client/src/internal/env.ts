/**
 * Reads an environment variable where the runtime has one (Node, Bun, Deno's `process` shim);
 * browsers and workers have no environment, so the answer there is `undefined`.
 */
export function readEnv(name: string): string | undefined {
  const env = (globalThis as { process?: { env?: Record<string, string | undefined> } }).process
    ?.env;
  const value = env?.[name]?.trim();
  return value ? value : undefined;
}
