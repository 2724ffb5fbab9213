/*
 * The executor of a node's sandbox (see session.ts), in C: what the sandbox holds resident while
 * it waits is this (about 1 MB) and bubblewrap, not a Node process (about 40 MB). It speaks the
 * wire of executor-wire.ts on stdin and stdout and behaves as session-executor.ts's Node program,
 * the fall-back where no compiler works:
 *
 * - each command is spawned in a process group of its own with exactly its argv, env and cwd,
 *   its stdout and stderr streamed back (each cut after 1 MiB + 1 byte), then its end;
 * - a kill ends the command's whole group, signalled until none of it is left (a fork bomb too);
 * - when its shell exits, what is left in its group is killed, and what still holds its pipes
 *   (a process moved to a session of its own) gets 250 ms to finish its output;
 * - with SVC_NPROC set (where no control group bounds processes), each command starts under
 *   RLIMIT_NPROC of that many, set between its fork and its exec: no `prlimit` run per command;
 * - with SVC_PROXY_SOCKET set, 127.0.0.1:3128 inside the sandbox's network namespace is relayed
 *   to the node's proxy on that unix socket;
 * - stdin ending ends it.
 *
 * One poll loop, no threads; children are reaped through a signalfd. Every descriptor of its own
 * is close-on-exec, so a command inherits only its /dev/null stdin and its two pipes.
 */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <poll.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/signalfd.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/resource.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "native-common.h"

/* Kept equal to executor-wire.ts. */
#define KEEP (1024 * 1024 + 1)
#define CHUNK 65536
#define MAX_FRAME (16 * 1024 * 1024)
#define HEADER 9
#define PROXY_PORT 3128
#define GRACE_MS 250
#define MAX_RELAYS 256
#define RELAY_BUF 16384

extern char **environ;

struct job {
  uint32_t id;
  pid_t pid;
  int fd[2]; /* stdout, stderr; -1 once closed */
  size_t sent[2];
  int exited, code, sig;
  int64_t deadline; /* ms; 0: none */
  struct job *next;
};

/* One relayed connection: fd[0] the command's TCP socket, fd[1] the proxy's unix socket; buf[i]
 * holds what was read from fd[i] and is not yet written to fd[1 - i]. */
struct relay {
  int fd[2];
  int connecting;
  int eof[2];
  size_t len[2], off[2];
  char buf[2][RELAY_BUF];
  struct relay *next;
};

static struct job *jobs;
/* RLIMIT_NPROC of every command (SVC_NPROC); 0: none. */
static rlim_t nproc;
static struct relay *relays;
static int relay_count;
static char chunk[CHUNK];

static int64_t now_ms(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/* The channel blocks: a broker slow to read slows the commands' output, never loses it. */
static void write_all(const void *data, size_t len) {
  const char *p = data;
  while (len > 0) {
    ssize_t n = write(1, p, len);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) _exit(0); /* the broker is gone: so is the sandbox */
    p += n;
    len -= (size_t)n;
  }
}

static void send_frame(char type, uint32_t id, const void *body, uint32_t len) {
  unsigned char header[HEADER];
  header[0] = (unsigned char)type;
  put32(header + 1, id);
  put32(header + 5, len);
  write_all(header, HEADER);
  if (len > 0) write_all(body, len);
}

/* Signalled until none of it is left: a process forking while the signal goes round (a fork
 * bomb) leaves nothing behind. */
static void kill_group(pid_t pid) {
  for (int i = 0; i < 1000; i++) {
    if (kill(-pid, SIGKILL) < 0) return;
  }
}

static void close_fd(int *fd) {
  if (*fd >= 0) close(*fd);
  *fd = -1;
}

static const char *errno_name(int e) {
  switch (e) {
    case ENOENT: return "ENOENT";
    case EACCES: return "EACCES";
    case ENOTDIR: return "ENOTDIR";
    case E2BIG: return "E2BIG";
    case ENOEXEC: return "ENOEXEC";
    case ENOMEM: return "ENOMEM";
    case EAGAIN: return "EAGAIN";
    case ELOOP: return "ELOOP";
    case ENAMETOOLONG: return "ENAMETOOLONG";
    case EPERM: return "EPERM";
    case EMFILE: return "EMFILE";
    default: return "EUNKNOWN";
  }
}

static void fail(uint32_t id, const char *file, int e) {
  char message[512];
  int n = snprintf(message, sizeof message, "spawn %s %s (%s)", file, errno_name(e), strerror(e));
  send_frame('F', id, message, n < 0 ? 0 : (uint32_t)(n < (int)sizeof message ? n : (int)sizeof message - 1));
}

/* A command: payload u32 argc, u32 envc, then cwd, argv and env ("K=V"), each NUL-ended. */
static void run(uint32_t id, unsigned char *body, uint32_t len) {
  if (len < 8) _exit(2);
  uint32_t argc = get32(body), envc = get32(body + 4);
  /* Each string takes a byte at least: counts past that are no command of the broker's. */
  if (argc < 1 || (uint64_t)argc + envc + 1 > len - 8) _exit(2);
  char **argv = calloc((size_t)argc + 1, sizeof *argv);
  char **envp = calloc((size_t)envc + 1, sizeof *envp);
  if (argv == NULL || envp == NULL) _exit(3);
  char *cwd = NULL;
  char *p = (char *)body + 8, *end = (char *)body + len;
  for (uint32_t i = 0; i < 1 + argc + envc; i++) {
    char *nul = p < end ? memchr(p, '\0', (size_t)(end - p)) : NULL;
    if (nul == NULL) _exit(2);
    if (i == 0) cwd = p;
    else if (i <= argc) argv[i - 1] = p;
    else envp[i - 1 - argc] = p;
    p = nul + 1;
  }
  if (p != end) _exit(2);

  int out[2], err[2], report[2];
  if (pipe2(out, O_CLOEXEC) < 0) {
    fail(id, argv[0], errno);
    goto done;
  }
  if (pipe2(err, O_CLOEXEC) < 0) {
    fail(id, argv[0], errno);
    close(out[0]);
    close(out[1]);
    goto done;
  }
  if (pipe2(report, O_CLOEXEC) < 0) {
    fail(id, argv[0], errno);
    close(out[0]);
    close(out[1]);
    close(err[0]);
    close(err[1]);
    goto done;
  }
  pid_t pid = fork();
  if (pid == 0) {
    sigset_t none;
    sigemptyset(&none);
    sigprocmask(SIG_SETMASK, &none, NULL);
    signal(SIGPIPE, SIG_DFL);
    /* A session of its own, as Node's `detached` makes: its group is its pid, and no other
     * command's process can join it. */
    setsid();
    int devnull = open("/dev/null", O_RDONLY | O_CLOEXEC);
    int e = 0;
    if (devnull < 0 || dup2(devnull, 0) < 0 || dup2(out[1], 1) < 0 || dup2(err[1], 2) < 0) e = errno;
    if (e == 0 && chdir(cwd) < 0) e = errno;
    if (e == 0 && nproc != 0 && setrlimit(RLIMIT_NPROC, &(struct rlimit){nproc, nproc}) < 0) e = errno;
    if (e == 0) {
      environ = envp;
      execvp(argv[0], argv);
      e = errno;
    }
    ssize_t ignored = write(report[1], &e, sizeof e);
    (void)ignored;
    _exit(127);
  }
  int e = pid < 0 ? errno : 0;
  close(out[1]);
  close(err[1]);
  close(report[1]);
  if (pid > 0) {
    /* The child's exec closes `report`; an error it met before comes through it. */
    ssize_t n;
    do n = read(report[0], &e, sizeof e);
    while (n < 0 && errno == EINTR);
    if (n != (ssize_t)sizeof e) e = 0;
    else waitpid(pid, NULL, 0);
  }
  close(report[0]);
  if (e != 0) {
    close(out[0]);
    close(err[0]);
    fail(id, argv[0], e);
    goto done;
  }
  struct job *job = calloc(1, sizeof *job);
  if (job == NULL) _exit(3);
  job->id = id;
  job->pid = pid;
  job->fd[0] = out[0];
  job->fd[1] = err[0];
  fcntl(out[0], F_SETFL, O_NONBLOCK);
  fcntl(err[0], F_SETFL, O_NONBLOCK);
  job->next = jobs;
  jobs = job;
done:
  free(argv);
  free(envp);
}

static void finish(struct job *job) {
  unsigned char end[8];
  put32(end, (uint32_t)job->code);
  put32(end + 4, (uint32_t)job->sig);
  send_frame('X', job->id, end, 8);
  close_fd(&job->fd[0]);
  close_fd(&job->fd[1]);
  for (struct job **at = &jobs; *at != NULL; at = &(*at)->next) {
    if (*at == job) {
      *at = job->next;
      break;
    }
  }
  free(job);
}

/* Returns 1 when the job ended (and is freed). */
static int settle_if_done(struct job *job) {
  if (!job->exited || job->fd[0] >= 0 || job->fd[1] >= 0) return 0;
  finish(job);
  return 1;
}

/* Output of `job` on stream `n` (0 stdout, 1 stderr): sent up to KEEP bytes, the rest read and
 * dropped, so the command never blocks on a full pipe. Returns 1 when the job ended. */
static int drain(struct job *job, int n) {
  ssize_t got = read(job->fd[n], chunk, sizeof chunk);
  if (got < 0 && (errno == EAGAIN || errno == EINTR)) return 0;
  if (got <= 0) {
    close_fd(&job->fd[n]);
    return settle_if_done(job);
  }
  if (job->sent[n] >= KEEP) return 0;
  size_t part = (size_t)got;
  if (part > KEEP - job->sent[n]) part = KEEP - job->sent[n];
  job->sent[n] += part;
  send_frame(n == 0 ? 'O' : 'E', job->id, chunk, (uint32_t)part);
  return 0;
}

static void reap(void) {
  int status;
  pid_t pid;
  while ((pid = waitpid(-1, &status, WNOHANG)) > 0) {
    for (struct job *job = jobs; job != NULL; job = job->next) {
      if (job->pid != pid || job->exited) continue;
      job->exited = 1;
      job->code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
      job->sig = WIFSIGNALED(status) ? WTERMSIG(status) : 0;
      /* What the command left running in its group ends with it, as in a sandbox of its own. */
      kill_group(pid);
      job->deadline = now_ms() + GRACE_MS;
      settle_if_done(job);
      break;
    }
  }
}

static void kill_job(uint32_t id) {
  for (struct job *job = jobs; job != NULL; job = job->next) {
    if (job->id == id) {
      kill_group(job->pid);
      return;
    }
  }
}

static void relay_close(struct relay *r) {
  close_fd(&r->fd[0]);
  close_fd(&r->fd[1]);
  for (struct relay **at = &relays; *at != NULL; at = &(*at)->next) {
    if (*at == r) {
      *at = r->next;
      break;
    }
  }
  free(r);
  relay_count--;
}

static void relay_accept(int listener, const char *path) {
  int c = accept4(listener, NULL, NULL, SOCK_NONBLOCK | SOCK_CLOEXEC);
  if (c < 0) return;
  if (relay_count >= MAX_RELAYS) {
    close(c);
    return;
  }
  int u = socket(AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
  struct sockaddr_un addr = {.sun_family = AF_UNIX};
  strncpy(addr.sun_path, path, sizeof addr.sun_path - 1);
  int connecting = 0;
  if (u >= 0 && connect(u, (struct sockaddr *)&addr, sizeof addr) < 0) {
    if (errno == EINPROGRESS || errno == EAGAIN) connecting = 1;
    else {
      close(u);
      u = -1;
    }
  }
  struct relay *r = u < 0 ? NULL : calloc(1, sizeof *r);
  if (r == NULL) {
    close(c);
    if (u >= 0) close(u);
    return;
  }
  r->fd[0] = c;
  r->fd[1] = u;
  r->connecting = connecting;
  r->next = relays;
  relays = r;
  relay_count++;
}

/* Moves what is buffered from side `i` to the other; returns -1 when the relay broke. */
static int relay_flush(struct relay *r, int i) {
  while (r->len[i] > 0) {
    ssize_t n = send(r->fd[1 - i], r->buf[i] + r->off[i], r->len[i], MSG_NOSIGNAL);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0 && errno == EAGAIN) return 0;
    if (n <= 0) return -1;
    r->off[i] += (size_t)n;
    r->len[i] -= (size_t)n;
  }
  r->off[i] = 0;
  /* One side's end is passed on as an end of writing to the other (a half close). */
  if (r->eof[i]) shutdown(r->fd[1 - i], SHUT_WR);
  return 0;
}

/* Side `i` is readable; returns -1 when the relay broke. */
static int relay_read(struct relay *r, int i) {
  ssize_t n = recv(r->fd[i], r->buf[i], RELAY_BUF, 0);
  if (n < 0 && (errno == EAGAIN || errno == EINTR)) return 0;
  if (n < 0) return -1;
  if (n == 0) r->eof[i] = 1;
  r->len[i] = (size_t)n;
  r->off[i] = 0;
  return r->connecting ? 0 : relay_flush(r, i);
}

/* What side `i` of `r` waits for: readable while its buffer is empty, the other side writable
 * while it is not. */
static short relay_wants(const struct relay *r, int side) {
  short events = 0;
  if (side == 1 && r->connecting) return POLLOUT;
  if (!r->eof[side] && r->len[side] == 0) events |= POLLIN;
  if (r->len[1 - side] > 0 && !(side == 0 && r->connecting)) events |= POLLOUT;
  return events;
}

static int listen_proxy(void) {
  int fd = socket(AF_INET, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
  if (fd < 0) return -1;
  int one = 1;
  setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
  struct sockaddr_in addr = {.sin_family = AF_INET, .sin_port = htons(PROXY_PORT)};
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  if (bind(fd, (struct sockaddr *)&addr, sizeof addr) < 0 || listen(fd, 128) < 0) return -1;
  return fd;
}

/* Frames from the broker, as many as are whole in `in`; what is left stays at its start. */
static unsigned char *in;
static size_t in_len, in_cap;

static void read_input(void) {
  if (in_cap - in_len < CHUNK) {
    size_t cap = in_cap == 0 ? 2 * CHUNK : in_cap * 2;
    if (cap > (size_t)MAX_FRAME + HEADER + CHUNK) cap = (size_t)MAX_FRAME + HEADER + CHUNK;
    if (cap <= in_cap) _exit(2);
    unsigned char *grown = realloc(in, cap);
    if (grown == NULL) _exit(3);
    in = grown;
    in_cap = cap;
  }
  ssize_t n = read(0, in + in_len, in_cap - in_len);
  if (n < 0 && errno == EINTR) return;
  if (n <= 0) _exit(0); /* stdin ended: the broker closed the session */
  in_len += (size_t)n;
  size_t at = 0;
  while (in_len - at >= HEADER) {
    unsigned char *f = in + at;
    uint32_t id = get32(f + 1), len = get32(f + 5);
    if (len > MAX_FRAME) _exit(2);
    if (in_len - at < HEADER + (size_t)len) break;
    if (f[0] == 'C') run(id, f + HEADER, len);
    else if (f[0] == 'K' && len == 0) kill_job(id);
    else _exit(2); /* no frame of the wire: nothing guessed */
    at += HEADER + len;
  }
  memmove(in, in + at, in_len - at);
  in_len -= at;
}

int main(void) {
  /* Nothing it inherited reaches a command. */
  close_inherited();
  int sfd = child_signals();
  if (sfd < 0) return 1;

  /* A bound that cannot be read is no bound to drop silently: the executor does not start. */
  const char *bound = getenv("SVC_NPROC");
  if (bound != NULL) {
    char *tail = NULL;
    unsigned long long n = strtoull(bound, &tail, 10);
    if (bound[0] < '1' || bound[0] > '9' || tail == NULL || *tail != '\0' || n > 1000000) return 1;
    nproc = (rlim_t)n;
  }

  const char *proxy = getenv("SVC_PROXY_SOCKET");
  int listener = -1;
  if (proxy != NULL && proxy[0] != '\0') {
    listener = listen_proxy();
    if (listener < 0) return 1;
  }
  send_frame('Y', 0, NULL, 0);

  struct pollfd *fds = NULL;
  size_t fds_cap = 0;
  for (;;) {
    size_t want = 3;
    for (struct job *j = jobs; j != NULL; j = j->next) want += 2;
    for (struct relay *r = relays; r != NULL; r = r->next) want += 2;
    if (want > fds_cap) {
      fds_cap = want * 2;
      fds = realloc(fds, fds_cap * sizeof *fds);
      if (fds == NULL) _exit(3);
    }
    size_t n = 0;
    fds[n++] = (struct pollfd){.fd = 0, .events = POLLIN};
    fds[n++] = (struct pollfd){.fd = sfd, .events = POLLIN};
    fds[n++] = (struct pollfd){.fd = listener, .events = POLLIN};
    int64_t next = 0;
    for (struct job *j = jobs; j != NULL; j = j->next) {
      fds[n++] = (struct pollfd){.fd = j->fd[0], .events = POLLIN};
      fds[n++] = (struct pollfd){.fd = j->fd[1], .events = POLLIN};
      if (j->exited && (next == 0 || j->deadline < next)) next = j->deadline;
    }
    for (struct relay *r = relays; r != NULL; r = r->next) {
      for (int side = 0; side < 2; side++) {
        short events = relay_wants(r, side);
        /* An end with nothing to wait for is left out: its hang-up would wake the loop forever. */
        fds[n++] = (struct pollfd){.fd = events == 0 ? -1 : r->fd[side], .events = events};
      }
    }
    int timeout = -1;
    if (next != 0) {
      int64_t left = next - now_ms();
      timeout = left < 0 ? 0 : (int)left;
    }
    if (poll(fds, n, timeout) < 0) {
      if (errno == EINTR) continue;
      return 1;
    }

    /* Jobs and relays in the order they were polled; each may end as it is served. */
    size_t k = 3;
    for (struct job *j = jobs, *after; j != NULL; j = after) {
      after = j->next;
      short out = fds[k++].revents, err = fds[k++].revents;
      if (out != 0 && j->fd[0] >= 0 && drain(j, 0)) continue;
      if (err != 0 && j->fd[1] >= 0) drain(j, 1);
    }
    for (struct relay *r = relays, *after; r != NULL; r = after) {
      after = r->next;
      short ev[2] = {fds[k].revents, fds[k + 1].revents};
      k += 2;
      int broke = 0;
      if ((ev[0] | ev[1]) & (POLLERR | POLLNVAL)) broke = 1;
      if (!broke && r->connecting && (ev[1] & (POLLOUT | POLLHUP))) {
        int e = 0;
        socklen_t elen = sizeof e;
        if (getsockopt(r->fd[1], SOL_SOCKET, SO_ERROR, &e, &elen) < 0 || e != 0) broke = 1;
        else {
          r->connecting = 0;
          if (r->len[0] > 0 || r->eof[0]) broke = relay_flush(r, 0) < 0;
          ev[1] = 0;
        }
      }
      for (int side = 0; side < 2 && !broke; side++) {
        if ((ev[side] & (POLLIN | POLLHUP)) && !r->eof[side] && r->len[side] == 0) {
          broke = relay_read(r, side) < 0;
        }
        /* A hang-up where output waits: the write says whether the relay broke. */
        if (!broke && (ev[side] & (POLLOUT | POLLHUP)) && r->len[1 - side] > 0) {
          broke = relay_flush(r, 1 - side) < 0;
        }
      }
      if (broke || (r->eof[0] && r->eof[1] && r->len[0] == 0 && r->len[1] == 0)) relay_close(r);
    }

    if (fds[2].revents & POLLIN) relay_accept(listener, proxy);
    if (fds[1].revents & POLLIN) {
      struct signalfd_siginfo info;
      while (read(sfd, &info, sizeof info) == (ssize_t)sizeof info) {
      }
      reap();
    }
    /* A command whose shell exited and whose pipes something else holds: 250 ms, then its end. */
    int64_t t = now_ms();
    for (struct job *j = jobs, *after; j != NULL; j = after) {
      after = j->next;
      if (j->exited && j->deadline <= t) {
        close_fd(&j->fd[0]);
        close_fd(&j->fd[1]);
        finish(j);
      }
    }
    if (fds[0].revents & (POLLIN | POLLHUP | POLLERR)) read_input();
  }
}
