/**
 * What the dispatcher hears of the objects' changes: due times that moved (it re-arms) and
 * objects unregistered (their attempts in flight stop). Both are told once the commit lands.
 */

export function objectSignals() {
  const changeListeners = new Set<() => void>();
  const goneListeners = new Set<(objectId: string) => void>();
  return {
    /** Calls `listener` after every commit that changed when a url or argv attempt is due. */
    onChange(listener: () => void): () => void {
      changeListeners.add(listener);
      return () => changeListeners.delete(listener);
    },

    /** Calls `listener` with the id of each object unregistered, once that commits. */
    onUnregistered(listener: (objectId: string) => void): () => void {
      goneListeners.add(listener);
      return () => goneListeners.delete(listener);
    },

    /** Due times changed: the dispatcher re-arms once the commit lands. */
    changed(afterCommit: (cb: () => void) => void): void {
      afterCommit(() => {
        for (const listener of changeListeners) listener();
      });
    },

    /** The object is unregistered (called after its commit). */
    gone(objectId: string): void {
      for (const listener of goneListeners) listener(objectId);
    },
  };
}

export type ObjectSignals = ReturnType<typeof objectSignals>;
