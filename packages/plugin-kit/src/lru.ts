/** A small least-recently-used map: bounds caches whose keys come from request paths. */
export class Lru<K, V> {
  readonly #max: number;
  readonly #map = new Map<K, V>();
  #newest: K | undefined;

  constructor(max: number) {
    this.#max = max;
  }

  get size(): number {
    return this.#map.size;
  }

  get(key: K): V | undefined {
    const value = this.#map.get(key);
    // Already the most recently used (the usual hit): nothing to reorder.
    if (value !== undefined && key !== this.#newest) {
      // Map keeps insertion order: re-inserting marks the entry most recently used.
      this.#map.delete(key);
      this.#map.set(key, value);
      this.#newest = key;
    }
    return value;
  }

  set(key: K, value: V): void {
    this.#map.delete(key);
    this.#map.set(key, value);
    this.#newest = key;
    if (this.#map.size > this.#max) this.#map.delete(this.#map.keys().next().value as K);
  }
}
