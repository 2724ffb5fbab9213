/**
 * The sandbox's seccomp filter, run by a small interpreter of classic BPF (the few instructions
 * it uses): it refuses the calls that reach into another process, another ABI's calls, and
 * nothing else.
 */
import { describe, expect, it } from 'vitest';
import { seccompProgram } from '../../src/sandbox/seccomp.ts';

const ALLOW = 0x7fff0000;
const EPERM = 0x00050001;

function run(program: Buffer, arch: number, nr: number): number {
  let acc = 0;
  for (let pc = 0; pc * 8 < program.length; ) {
    const code = program.readUInt16LE(pc * 8);
    const jt = program.readUInt8(pc * 8 + 2);
    const jf = program.readUInt8(pc * 8 + 3);
    const k = program.readUInt32LE(pc * 8 + 4);
    if (code === 0x20) acc = k === 4 ? arch : k === 0 ? nr : Number.NaN;
    else if (code === 0x15) pc += acc === k ? jt : jf;
    else if (code === 0x35) pc += acc >= k ? jt : jf;
    else if (code === 0x06) return k;
    else throw new Error(`unknown instruction ${code}`);
    pc++;
  }
  throw new Error('fell off the end');
}

describe('the seccomp filter', () => {
  it('on x86_64 refuses ptrace, process_vm_readv/writev, pidfd_getfd, x32 and other ABIs', () => {
    const p = seccompProgram('x64')!;
    const x64 = 0xc000003e;
    for (const nr of [101, 310, 311, 438]) expect(run(p, x64, nr)).toBe(EPERM);
    for (const nr of [0, 1, 59, 57, 434, 437, 439]) expect(run(p, x64, nr)).toBe(ALLOW);
    expect(run(p, x64, 0x40000000 + 1)).toBe(EPERM);
    expect(run(p, 0x40000003, 26)).toBe(EPERM); // i386
  });
  it('on arm64 refuses the same calls by their numbers there', () => {
    const p = seccompProgram('arm64')!;
    const a64 = 0xc00000b7;
    for (const nr of [117, 270, 271, 438]) expect(run(p, a64, nr)).toBe(EPERM);
    for (const nr of [63, 64, 221, 220]) expect(run(p, a64, nr)).toBe(ALLOW);
  });
  it('has none for an architecture it does not know', () => {
    expect(seccompProgram('riscv64')).toBeNull();
  });
});
