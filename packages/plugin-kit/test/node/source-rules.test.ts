/// <reference types="node" />
// Node only: reads the source tree to enforce the kit's portability rules.
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { describe, expect, it } from 'vitest';
import pkg from '../../package.json' with { type: 'json' };

const src = join(import.meta.dirname, '../../src');
const files = (readdirSync(src, { recursive: true }) as string[])
  .filter((f) => f.endsWith('.ts'))
  .map((f) => join(src, f));

function imports(file: string): string[] {
  const text = readFileSync(file, 'utf8');
  return [...text.matchAll(/(?:^|\n)\s*(?:import|export)[^'"]*?from\s+'([^']+)'/g)].map(
    (m) => m[1] ?? '',
  );
}

describe('the kit runs on every Fetch runtime', () => {
  it('has source files to check', () => {
    expect(files.length).toBeGreaterThan(10);
  });

  it('imports no node: module and no framework, only jose, @cfworker/json-schema and itself', () => {
    for (const file of files) {
      for (const specifier of imports(file)) {
        const ok =
          specifier.startsWith('.') ||
          specifier === 'jose' ||
          specifier === '@cfworker/json-schema';
        expect(`${relative(src, file)}: ${specifier}`).toBe(
          `${relative(src, file)}: ${ok ? specifier : 'forbidden'}`,
        );
      }
    }
  });

  it('uses no Node globals (Buffer, process, require)', () => {
    for (const file of files) {
      const code = readFileSync(file, 'utf8').replace(/\/\/.*|\/\*[\s\S]*?\*\//g, '');
      expect(`${relative(src, file)}: ${/\b(Buffer|process|require|__dirname)\b/.test(code)}`).toBe(
        `${relative(src, file)}: false`,
      );
    }
  });

  it('depends at runtime on jose and @cfworker/json-schema only', () => {
    expect(Object.keys(pkg.dependencies).sort()).toEqual(['@cfworker/json-schema', 'jose']);
  });
});
