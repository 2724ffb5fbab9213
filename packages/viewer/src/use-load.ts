import { useEffect, useState } from 'preact/hooks';
import { errorText } from './api.ts';

export type Load<T> =
  | { state: 'loading' }
  | { state: 'error'; error: string }
  | { state: 'ready'; value: T };

/**
 * `load()` run on mount and again whenever a key changes (a route parameter, a live version).
 * A refresh keeps showing the last value until the new one arrives, so live updates never blank
 * the page; an answer that arrives after a newer request started is dropped.
 */
export function useLoad<T>(load: () => Promise<T>, keys: readonly unknown[]): Load<T> {
  const [result, setResult] = useState<Load<T>>({ state: 'loading' });
  useEffect(() => {
    let current = true;
    load().then(
      (value) => current && setResult({ state: 'ready', value }),
      (error: unknown) => current && setResult({ state: 'error', error: errorText(error) }),
    );
    return () => {
      current = false;
    };
  }, keys);
  return result;
}
