import type { ComponentChildren } from 'preact';
import type { Load } from './use-load.ts';

/** A state as a badge: the word itself (never colour alone), styled per state. */
export function StateBadge({ state }: { state: string }) {
  return <span class={`badge badge-${state}`}>{state}</span>;
}

/** A load's value through `children`, or what is happening instead. */
export function Loaded<T>({
  load,
  children,
}: {
  load: Load<T>;
  children: (value: T) => ComponentChildren;
}) {
  if (load.state === 'loading') return <p aria-busy="true">Loading…</p>;
  if (load.state === 'error') {
    return (
      <p role="alert" class="error">
        {load.error}
      </p>
    );
  }
  return <>{children(load.value)}</>;
}

export function Time({ at }: { at: string | null }) {
  if (at === null) return <span class="muted">—</span>;
  return <time dateTime={at}>{new Date(at).toLocaleString()}</time>;
}

export function Json({ value }: { value: unknown }) {
  return <pre class="json">{JSON.stringify(value, null, 2)}</pre>;
}
