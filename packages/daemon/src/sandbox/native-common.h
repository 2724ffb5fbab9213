/*
 * What the sandbox's two C programs share (executor.c in a sandbox, launcher.c beside its host):
 * the wire's little-endian u32, letting go of every inherited descriptor, and the signalfd their
 * one poll loop reaps children through. executor-build.ts hashes this file with each source.
 */
#ifndef SVC_NATIVE_COMMON_H
#define SVC_NATIVE_COMMON_H

#include <signal.h>
#include <stdint.h>
#include <sys/signalfd.h>
#include <sys/syscall.h>
#include <unistd.h>

static inline void put32(unsigned char *p, uint32_t v) {
  p[0] = v & 0xff;
  p[1] = (v >> 8) & 0xff;
  p[2] = (v >> 16) & 0xff;
  p[3] = (v >> 24) & 0xff;
}

static inline uint32_t get32(const unsigned char *p) {
  return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

/* Closes every descriptor from 3 up: nothing the process inherited reaches what it starts. */
static inline void close_inherited(void) {
#ifdef SYS_close_range
  if (syscall(SYS_close_range, 3U, ~0U, 0U) == 0) return;
#endif
  for (int fd = 3; fd < 1024; fd++) close(fd);
}

/*
 * SIGPIPE ignored (a reader gone is a write error), SIGCHLD blocked and read from the returned
 * signalfd (non-blocking, close-on-exec); -1 when it cannot be made.
 */
static inline int child_signals(void) {
  signal(SIGPIPE, SIG_IGN);
  sigset_t chld;
  sigemptyset(&chld);
  sigaddset(&chld, SIGCHLD);
  sigprocmask(SIG_BLOCK, &chld, NULL);
  return signalfd(-1, &chld, SFD_NONBLOCK | SFD_CLOEXEC);
}

#endif
