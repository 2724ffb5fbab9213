import { useEffect, useRef, useState } from 'preact/hooks';
import { errorText } from './api.ts';

export interface ActionStatus {
  error: boolean;
  text: string;
}

/**
 * One button's call and what came of it: `busy` while it runs (the buttons disable, so a
 * double click sends once), then a line saying it happened or why not.
 */
export function useAction() {
  const [busy, setBusy] = useState(false);
  const [status, setStatus] = useState<ActionStatus | null>(null);
  async function run<T>(call: () => Promise<T>, done: (value: T) => string): Promise<T | null> {
    setBusy(true);
    setStatus(null);
    try {
      const value = await call();
      setStatus({ error: false, text: done(value) });
      return value;
    } catch (error) {
      setStatus({ error: true, text: errorText(error) });
      return null;
    } finally {
      setBusy(false);
    }
  }
  return { busy, status, run, say: setStatus };
}

/** The outcome of an action: a polite status when it worked, an alert when it did not. */
export function StatusLine({ status }: { status: ActionStatus | null }) {
  if (status === null) return null;
  return (
    <p role={status.error ? 'alert' : 'status'} class={status.error ? 'error' : 'ok'}>
      {status.text}
    </p>
  );
}

/**
 * A button for an action that cannot be taken back: the first press asks, "Yes" does it, "No"
 * (or Escape) puts the button back. Focus moves to "Yes" so the keyboard can confirm at once.
 */
export function ConfirmButton({
  label,
  question,
  disabled,
  onConfirm,
}: {
  label: string;
  question: string;
  disabled: boolean;
  onConfirm: () => void;
}) {
  const [asking, setAsking] = useState(false);
  const yes = useRef<HTMLButtonElement>(null);
  useEffect(() => {
    if (asking) yes.current?.focus();
  }, [asking]);
  if (!asking) {
    return (
      <button type="button" disabled={disabled} onClick={() => setAsking(true)}>
        {label}
      </button>
    );
  }
  return (
    <fieldset class="confirm" onKeyDown={(e) => e.key === 'Escape' && setAsking(false)}>
      <legend>{question}</legend>
      <button
        type="button"
        class="danger"
        ref={yes}
        disabled={disabled}
        onClick={() => {
          setAsking(false);
          onConfirm();
        }}
      >
        Yes, {label.toLowerCase()}
      </button>
      <button type="button" onClick={() => setAsking(false)}>
        No
      </button>
    </fieldset>
  );
}
