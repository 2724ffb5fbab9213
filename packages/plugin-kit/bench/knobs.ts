/// <reference types="node" />
// The benchmarks' environment knobs, read and checked the same way by each of them.

/** A whole number from the environment, or `fallback`; a TypeError names a bad one. */
export function nonNegative(name: string, fallback: number): number {
  const value = Number(process.env[name] ?? fallback);
  if (!Number.isInteger(value) || value < 0) {
    throw new TypeError(`${name} must be a whole number`);
  }
  return value;
}

export function positive(name: string, fallback: number): number {
  const value = nonNegative(name, fallback);
  if (value === 0) throw new TypeError(`${name} must be a positive integer`);
  return value;
}

/** Whether BENCH_ROWS (comma-separated parts of row names) selects a row; all when unset. */
export function rowWanted(name: string): boolean {
  const parts = process.env.BENCH_ROWS?.split(',').filter((part) => part !== '');
  return parts === undefined || parts.some((part) => name.includes(part));
}

/** Whether BENCH_VARIANTS (comma-separated variant names) selects a variant; all when unset. */
export function variantWanted(name: string): boolean {
  const names = process.env.BENCH_VARIANTS?.split(',').filter((part) => part !== '');
  return names === undefined || names.includes(name);
}

/** The Node server adapters `bench/serve.ts` can serve with, by BENCH_ADAPTER's values. */
export const NODE_ADAPTERS = {
  hono: '@hono/node-server',
  srvx: 'srvx',
  remix: '@remix-run/node-fetch-server',
} as const;
export type NodeAdapter = keyof typeof NODE_ADAPTERS;

/** BENCH_ADAPTER (default `hono`): which adapter serves the cells on Node. */
export function nodeAdapter(): NodeAdapter {
  const name = process.env.BENCH_ADAPTER ?? 'hono';
  if (!Object.hasOwn(NODE_ADAPTERS, name)) {
    throw new TypeError(`BENCH_ADAPTER must be one of ${Object.keys(NODE_ADAPTERS).join(', ')}`);
  }
  return name as NodeAdapter;
}
