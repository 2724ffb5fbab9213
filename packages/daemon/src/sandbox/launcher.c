/*
 * The launcher of an agent host's sandboxes (see launcher.ts), in C. The host is a Node process
 * of about 100 MB: every `fork()` it makes copies its page tables, and Node's `spawn` holds the
 * host's event loop until the child has exec'd, 5 ms a sandbox at 8 active nodes, every node's
 * turn waiting behind it (a CPU profile of the host, `SVC_HOST_CPU_PROF`). This process is about
 * 1 MB: it forks each sandbox's `bwrap` in its stead, and the host only writes a frame.
 *
 * Run as `launcher <socket>`: <socket> is a unix socket the host listens on, in a directory of its
 * own (0700). It reads frames of executor-wire.ts's shape (a type byte, a u32 id, a u32 length,
 * the body) on stdin:
 * - `S` start: u32 argc, u32 envc, u32 opens, u32 joins, then NUL-ended strings: the session's
 *   token (what it says first on its connection), argv, env (`K=V`), opens (each a mode, `p` or
 *   `r`, then a path), joins (control group files). The child opens each path as fd 3, 4, …
 *   (`p`: a handle on the path itself, no link followed, that names the path back; `r`: read,
 *   not blocking), writes `0` to each join (the group then holds it: v1's `tasks`, v2's
 *   `cgroup.procs`), connects to <socket> and writes the token, makes the connection its stdin
 *   and stdout and /dev/null its stderr, and execs argv. Nothing else it holds is inherited.
 * - `K` kill: SIGKILL to the session's process (bwrap: its sandbox ends with it).
 * It writes on stdout `R` (id, no body) once a start's child has said its token on its
 * connection, `F` (id, a message) when a start failed before its exec, and `X` (id, i32 code or
 * -1, i32 signal or 0) when a session's process ended.
 *
 * It ends when its stdin ends or its parent dies (the sandboxes then end too: bwrap's
 * --die-with-parent). One poll loop, no threads; children reaped through a signalfd.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/signalfd.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <unistd.h>

#include "native-common.h"

#define HEADER 9
#define MAX_FRAME (16 * 1024 * 1024)
#define MAX_MESSAGE 1024
#define TOKEN_LEN 32
/* Where a child's descriptors wait before they take their numbers: above every target. */
#define HIGH_FD 512
#define MAX_OPENS 256

struct session {
  uint32_t id;
  pid_t pid;
  struct session *next;
};

static struct session *sessions;
static struct sockaddr_un address;

/* One write: a frame under PIPE_BUF reaches the host whole, whoever else writes to the pipe. */
static void send_frame(int fd, char type, uint32_t id, const void *body, uint32_t len) {
  unsigned char frame[HEADER + MAX_MESSAGE];
  if (len > MAX_MESSAGE) len = MAX_MESSAGE;
  frame[0] = (unsigned char)type;
  put32(frame + 1, id);
  put32(frame + 5, len);
  if (len > 0) memcpy(frame + HEADER, body, len);
  ssize_t n;
  do n = write(fd, frame, HEADER + len);
  while (n < 0 && errno == EINTR);
}

/* In the child: says why to the host, and ends. */
static void refuse(int report, uint32_t id, const char *what, const char *path, int e) {
  char message[MAX_MESSAGE];
  int n = snprintf(message, sizeof message, "%s %s: %s", what, path, strerror(e));
  if (n < 0) n = 0;
  if ((size_t)n >= sizeof message) n = sizeof message - 1;
  send_frame(report, 'F', id, message, (uint32_t)n);
  _exit(127);
}

/* A handle on `path` itself that names `path` back (as descriptors.ts's `openPath`), or -1. */
static int open_path(const char *path) {
  int fd = open(path, O_PATH | O_NOFOLLOW | O_CLOEXEC);
  if (fd < 0) return -1;
  struct stat st;
  char self[64], named[PATH_MAX];
  snprintf(self, sizeof self, "/proc/self/fd/%d", fd);
  ssize_t n = readlink(self, named, sizeof named - 1);
  if (fstat(fd, &st) == 0 && !S_ISLNK(st.st_mode) && n > 0) {
    named[n] = '\0';
    if (strcmp(named, path) == 0) return fd;
  }
  close(fd);
  errno = ENOENT;
  return -1;
}

/* The child, from its fork to its exec; never returns. */
static void start_child(uint32_t id, char *token, char **argv, char **env, char **opens,
                        uint32_t nopens, char **joins, uint32_t njoins) {
  sigset_t none;
  sigemptyset(&none);
  sigprocmask(SIG_SETMASK, &none, NULL);
  signal(SIGPIPE, SIG_DFL);
  int report = fcntl(1, F_DUPFD_CLOEXEC, HIGH_FD + MAX_OPENS);
  if (report < 0) _exit(127);

  int high[MAX_OPENS];
  for (uint32_t i = 0; i < nopens; i++) {
    const char *mode = opens[2 * i], *path = opens[2 * i + 1];
    int fd = mode[0] == 'p' ? open_path(path) : open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
    if (fd < 0) refuse(report, id, "could not open", path, errno);
    high[i] = fcntl(fd, F_DUPFD_CLOEXEC, HIGH_FD + i);
    if (high[i] != HIGH_FD + (int)i) refuse(report, id, "could not keep", path, errno);
    close(fd);
  }
  for (uint32_t i = 0; i < njoins; i++) {
    int fd = open(joins[i], O_WRONLY | O_CLOEXEC);
    if (fd < 0 || write(fd, "0", 1) != 1) refuse(report, id, "could not join", joins[i], errno);
    close(fd);
  }
  /* Last: what failed before it is told on the launcher's stdout, not a connection that ends. */
  int sock = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
  if (sock < 0 || connect(sock, (struct sockaddr *)&address, sizeof address) != 0)
    refuse(report, id, "could not reach its host at", address.sun_path, errno);
  if (write(sock, token, TOKEN_LEN) != TOKEN_LEN)
    refuse(report, id, "could not reach its host at", address.sun_path, errno);
  /* Before the `X` its end brings (one pipe, in order): the host then waits for the connection,
   * already queued at its socket, even when it reads the `X` first. */
  send_frame(report, 'R', id, NULL, 0);
  int null = open("/dev/null", O_WRONLY | O_CLOEXEC);
  if (null < 0 || dup2(sock, 0) < 0 || dup2(sock, 1) < 0 || dup2(null, 2) < 0)
    refuse(report, id, "could not set up the stdio of", argv[0], errno);
  for (uint32_t i = 0; i < nopens; i++) {
    if (dup2(high[i], 3 + (int)i) < 0) refuse(report, id, "could not pass", opens[2 * i + 1], errno);
  }
  execve(argv[0], argv, env);
  refuse(report, id, "could not run", argv[0], errno);
}

/* Splits `count` NUL-ended strings off `*at`, up to `end`; NULL when the body is short of them. */
static char **strings(char **at, const char *end, uint32_t count) {
  char **list = calloc((size_t)count + 1, sizeof *list);
  if (list == NULL) return NULL;
  for (uint32_t i = 0; i < count; i++) {
    char *nul = memchr(*at, '\0', (size_t)(end - *at));
    if (nul == NULL) {
      free(list);
      return NULL;
    }
    list[i] = *at;
    *at = nul + 1;
  }
  return list;
}

static void start(uint32_t id, unsigned char *body, uint32_t len) {
  const char *bad = "its start frame is malformed";
  if (len < 16) {
    send_frame(1, 'F', id, bad, (uint32_t)strlen(bad));
    return;
  }
  uint32_t argc = get32(body), envc = get32(body + 4), nopens = get32(body + 8);
  uint32_t njoins = get32(body + 12);
  char *at = (char *)body + 16;
  const char *end = (const char *)body + len;
  char **token = NULL, **argv = NULL, **env = NULL, **opens = NULL, **joins = NULL;
  if (argc >= 1 && argc < 65536 && envc < 65536 && nopens <= MAX_OPENS && njoins < 64) {
    token = strings(&at, end, 1);
    if (token != NULL && strlen(token[0]) == TOKEN_LEN) argv = strings(&at, end, argc);
    if (argv != NULL) env = strings(&at, end, envc);
    if (env != NULL) opens = strings(&at, end, 2 * nopens);
    if (opens != NULL) joins = strings(&at, end, njoins);
  }
  if (joins == NULL) {
    send_frame(1, 'F', id, bad, (uint32_t)strlen(bad));
  } else {
    struct session *s = malloc(sizeof *s);
    pid_t pid = s == NULL ? -1 : fork();
    if (pid == 0) start_child(id, token[0], argv, env, opens, nopens, joins, njoins);
    if (pid < 0) {
      free(s);
      const char *why = "it could not fork";
      send_frame(1, 'F', id, why, (uint32_t)strlen(why));
    } else {
      s->id = id;
      s->pid = pid;
      s->next = sessions;
      sessions = s;
    }
  }
  free(token);
  free(argv);
  free(env);
  free(opens);
  free(joins);
}

static void kill_session(uint32_t id) {
  for (struct session *s = sessions; s != NULL; s = s->next) {
    if (s->id == id) kill(s->pid, SIGKILL);
  }
}

static void reap(void) {
  int status;
  pid_t pid;
  while ((pid = waitpid(-1, &status, WNOHANG)) > 0) {
    for (struct session **p = &sessions; *p != NULL; p = &(*p)->next) {
      struct session *s = *p;
      if (s->pid != pid) continue;
      unsigned char body[8];
      put32(body, WIFEXITED(status) ? (uint32_t)WEXITSTATUS(status) : (uint32_t)-1);
      put32(body + 4, WIFSIGNALED(status) ? (uint32_t)WTERMSIG(status) : 0);
      send_frame(1, 'X', s->id, body, sizeof body);
      *p = s->next;
      free(s);
      break;
    }
  }
}

static unsigned char *in;
static size_t in_len, in_cap;

/* Reads what stdin has and acts on every whole frame; 0 once it ended (or broke the wire). */
static int read_input(void) {
  if (in_cap - in_len < 65536) {
    size_t cap = in_cap == 0 ? 131072 : in_cap * 2;
    if (cap > MAX_FRAME + HEADER + 65536) cap = MAX_FRAME + HEADER + 65536;
    unsigned char *grown = realloc(in, cap);
    if (grown == NULL) return 0;
    in = grown;
    in_cap = cap;
  }
  ssize_t n = read(0, in + in_len, in_cap - in_len);
  if (n < 0) return errno == EINTR || errno == EAGAIN;
  if (n == 0) return 0;
  in_len += (size_t)n;
  size_t at = 0;
  while (in_len - at >= HEADER) {
    uint32_t id = get32(in + at + 1), len = get32(in + at + 5);
    if (len > MAX_FRAME) return 0;
    if (in_len - at < HEADER + (size_t)len) break;
    char type = (char)in[at];
    if (type == 'S') start(id, in + at + HEADER, len);
    else if (type == 'K') kill_session(id);
    else return 0;
    at += HEADER + len;
  }
  memmove(in, in + at, in_len - at);
  in_len -= at;
  return 1;
}

int main(int argc, char **argv) {
  pid_t parent = getppid();
  prctl(PR_SET_PDEATHSIG, SIGKILL);
  if (getppid() != parent) return 1; /* its host died before it could be told */
  if (argc != 2 || strlen(argv[1]) >= sizeof address.sun_path) return 2;
  address.sun_family = AF_UNIX;
  strcpy(address.sun_path, argv[1]);
  /* Nothing it inherited reaches a sandbox (a test runner's pipe, say). */
  close_inherited();
  int sfd = child_signals();
  if (sfd < 0) return 1;
  fcntl(0, F_SETFD, FD_CLOEXEC);
  fcntl(1, F_SETFD, FD_CLOEXEC);
  struct pollfd fds[2] = {{.fd = 0, .events = POLLIN}, {.fd = sfd, .events = POLLIN}};
  for (;;) {
    if (poll(fds, 2, -1) < 0) {
      if (errno == EINTR) continue;
      return 1;
    }
    if (fds[1].revents != 0) {
      struct signalfd_siginfo info;
      while (read(sfd, &info, sizeof info) > 0) {
      }
      reap();
    }
    if (fds[0].revents != 0 && !read_input()) return 0;
  }
}
