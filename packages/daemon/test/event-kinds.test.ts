/** `EVENT_KINDS` of the protocol is every kind the daemon records, and no other. */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { EVENT_KINDS } from '@svc/protocol';
import { describe, expect, it } from 'vitest';

const SRC = fileURLToPath(new URL('../src', import.meta.url));

/** The kinds named in the first argument of every `events.record(…)` of the daemon's sources. */
function recordedKinds(): Set<string> {
  const kinds = new Set<string>();
  for (const entry of readdirSync(SRC, { recursive: true, withFileTypes: true })) {
    if (!entry.isFile() || !entry.name.endsWith('.ts')) continue;
    const text = readFileSync(join(entry.parentPath, entry.name), 'utf8');
    for (const call of text.matchAll(/events\.record\(\s*([^,]+),/g)) {
      for (const kind of call[1]!.matchAll(/'([a-z_.]+)'/g)) kinds.add(kind[1]!);
    }
  }
  return kinds;
}

describe('EVENT_KINDS', () => {
  it('lists exactly the kinds the daemon records', () => {
    expect([...recordedKinds()].sort()).toEqual([...EVENT_KINDS].sort());
  });
});
