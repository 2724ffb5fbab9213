/**
 * A seccomp filter for every sandbox (bwrap `--seccomp`): a process inside may not reach into
 * another's memory or descriptors (`ptrace`, `process_vm_readv`/`writev`, `pidfd_getfd`), so a
 * command cannot take the node's executor's channel to its broker, nor read another command's
 * secrets from its memory. Every other call is allowed. Calls of another architecture's ABI
 * (32-bit, x32) are refused whole: their numbers differ and would slip past the list.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { privateTmp } from './private-tmp.ts';

// Linux's audit architectures and the numbers of the refused calls on each.
const ARCHES: Record<string, { audit: number; calls: number[] }> = {
  x64: { audit: 0xc000003e, calls: [101, 310, 311, 438] },
  arm64: { audit: 0xc00000b7, calls: [117, 270, 271, 438] },
};

const LD_ABS_W = 0x20;
const JEQ = 0x15;
const JGE = 0x35;
const RET = 0x06;
const ALLOW = 0x7fff0000;
const EPERM = 0x00050000 | 1;
/** x32 calls run on x86_64 with this bit set in their number. */
const X32_BIT = 0x40000000;

/** The compiled filter for this machine, or `null` where none is known (then none is loaded). */
export function seccompProgram(arch = process.arch): Buffer | null {
  const known = ARCHES[arch];
  if (known === undefined) return null;
  const n = known.calls.length;
  // [code, jt, jf, k]; a jump's offsets count from the next instruction.
  const program: [number, number, number, number][] = [
    [LD_ABS_W, 0, 0, 4], // seccomp_data.arch
    [JEQ, 1, 0, known.audit],
    [RET, 0, 0, EPERM],
    [LD_ABS_W, 0, 0, 0], // seccomp_data.nr
    [JGE, n + 1, 0, X32_BIT],
    ...known.calls.map((nr, i) => [JEQ, n - i, 0, nr] as [number, number, number, number]),
    [RET, 0, 0, ALLOW],
    [RET, 0, 0, EPERM],
  ];
  const bytes = Buffer.alloc(program.length * 8);
  program.forEach(([code, jt, jf, k], i) => {
    bytes.writeUInt16LE(code, i * 8);
    bytes.writeUInt8(jt, i * 8 + 2);
    bytes.writeUInt8(jf, i * 8 + 3);
    bytes.writeUInt32LE(k >>> 0, i * 8 + 4);
  });
  return bytes;
}

let file: string | null | undefined;

/** The file of the filter, which each `bwrap` is handed opened (it reads it whole), or `null`. */
export function seccompFile(): string | null {
  if (file === undefined) {
    const program = seccompProgram();
    if (program === null) file = null;
    else {
      // In a directory of this process's own (0700, made exclusively): nobody else's filter.
      const dir = mkdtempSync(join(privateTmp(), 'svc-seccomp-'));
      file = join(dir, 'filter.bpf');
      writeFileSync(file, program, { mode: 0o600 });
      process.once('exit', () => rmSync(dir, { recursive: true, force: true }));
    }
  }
  return file;
}
