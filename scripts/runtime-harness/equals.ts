// Deep equality with vitest's semantics: `toEqual` ignores properties whose value is
// `undefined` and does not compare prototypes; `toStrictEqual` does both and also
// tells sparse array holes from `undefined`.

type Seen = { a: unknown[]; b: unknown[] };

export function equals(a: unknown, b: unknown, strict = false): boolean {
  return eq(a, b, strict, { a: [], b: [] });
}

function eq(a: unknown, b: unknown, strict: boolean, seen: Seen): boolean {
  if (Object.is(a, b)) return true;
  if (typeof a !== 'object' || typeof b !== 'object' || a === null || b === null) return false;

  const tag = Object.prototype.toString.call(a);
  if (tag !== Object.prototype.toString.call(b)) return false;
  if (strict && Object.getPrototypeOf(a) !== Object.getPrototypeOf(b)) return false;

  // Cycles: a pair already under comparison is assumed equal (as vitest does).
  const depth = seen.a.indexOf(a);
  if (depth !== -1) return seen.b[depth] === b;
  seen.a.push(a);
  seen.b.push(b);
  try {
    return eqObjects(a, b, tag, strict, seen);
  } finally {
    seen.a.pop();
    seen.b.pop();
  }
}

function eqObjects(a: object, b: object, tag: string, strict: boolean, seen: Seen): boolean {
  if (a instanceof Date) return b instanceof Date && Object.is(a.getTime(), b.getTime());
  if (a instanceof RegExp) {
    return b instanceof RegExp && a.source === b.source && a.flags === b.flags;
  }
  if (tag === '[object Number]' || tag === '[object String]' || tag === '[object Boolean]') {
    return Object.is(a.valueOf(), b.valueOf());
  }
  if (a instanceof ArrayBuffer || a instanceof DataView) {
    return bytesEqual(toBytes(a), toBytes(b as ArrayBuffer | DataView));
  }
  if (a instanceof Map) {
    if (!(b instanceof Map) || a.size !== b.size) return false;
    for (const [key, value] of a) {
      if (!b.has(key) || !eq(value, b.get(key), strict, seen)) return false;
    }
    return true;
  }
  if (a instanceof Set) {
    if (!(b instanceof Set) || a.size !== b.size) return false;
    outer: for (const value of a) {
      if (b.has(value)) continue;
      for (const other of b) if (eq(value, other, strict, seen)) continue outer;
      return false;
    }
    return true;
  }
  if (a instanceof Error && b instanceof Error) {
    if (a.name !== b.name || a.message !== b.message) return false;
    if (!eq(a.cause, b.cause, strict, seen)) return false;
  }
  if (Array.isArray(a)) {
    const other = b as unknown[];
    if (a.length !== other.length) return false;
    for (let i = 0; i < a.length; i++) {
      if (strict && i in a !== i in other) return false;
      if (!eq(a[i], other[i], strict, seen)) return false;
    }
  }
  const keysA = ownKeys(a, strict);
  const keysB = ownKeys(b, strict);
  if (keysA.length !== keysB.length) return false;
  for (const key of keysA) {
    if (strict && !Object.hasOwn(b, key)) return false;
    if (!eq(Reflect.get(a, key), Reflect.get(b, key), strict, seen)) return false;
  }
  return true;
}

// Enumerable own keys (and symbols); outside strict mode, keys holding `undefined` do not count.
function ownKeys(value: object, strict: boolean): PropertyKey[] {
  const keys: PropertyKey[] = Array.isArray(value)
    ? Object.keys(value).filter((key) => !/^\d+$/.test(key))
    : Object.keys(value);
  for (const symbol of Object.getOwnPropertySymbols(value)) {
    if (Object.getOwnPropertyDescriptor(value, symbol)?.enumerable) keys.push(symbol);
  }
  return strict ? keys : keys.filter((key) => Reflect.get(value, key) !== undefined);
}

function toBytes(value: ArrayBuffer | DataView): Uint8Array {
  return value instanceof DataView
    ? new Uint8Array(value.buffer, value.byteOffset, value.byteLength)
    : new Uint8Array(value);
}

function bytesEqual(a: Uint8Array, b: Uint8Array): boolean {
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
  return true;
}
