/**
 * A map of at most `max` entries that forgets the oldest insert first: it bounds caches whose
 * keys come from request paths. A hit does not reorder anything, so it costs one lookup; a busy
 * key that was forgotten is simply worked out and added again.
 */
export class BoundedCache<K, V> {
  readonly #max: number;
  readonly #map = new Map<K, V>();

  constructor(max: number) {
    this.#max = max;
  }

  get size(): number {
    return this.#map.size;
  }

  get(key: K): V | undefined {
    return this.#map.get(key);
  }

  set(key: K, value: V): void {
    // Map keeps insertion order: re-inserting makes the key the newest.
    this.#map.delete(key);
    this.#map.set(key, value);
    if (this.#map.size > this.#max) this.#map.delete(this.#map.keys().next().value as K);
  }
}
