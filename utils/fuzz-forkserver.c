// A fork server for utils/fuzz.py, preloaded into a tile tool
// (LD_PRELOAD) so that a run of it costs a fork, not a start: loading
// libMLIR and running the static constructors (pass and option
// registration) takes most of a tool's time on a small input. With
// TILE_FORKSERVER_FDS="R,W" set, the tool does not run main; it reads
// requests from fd R and, for each, forks a child that runs main with the
// request's arguments, exactly as a fresh start would (nothing has parsed
// an option or touched a context yet), and writes to fd W:
//   request:  "<n>\0<cwd>\0<stdout file>\0<stderr file>\0<arg 0>\0...\0"
//             with n the count of the strings that follow it
//   replies:  "pid <child>\n", then "status <waitpid status>\n"
// The child leads its own process group, so that the fuzzer can kill it
// and whatever it started (ptxas) at a timeout. Without the variable the
// tool runs as always. Built by fuzz.py: cc -shared -fPIC -o X.so X.c -ldl
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

typedef int (*main_fn)(int, char **, char **);
typedef int (*start_fn)(main_fn, int, char **, void (*)(void),
                        void (*)(void), void (*)(void), void *);

static main_fn real_main;
static int request_fd = -1, reply_fd = -1;

/// Reads one NUL-terminated string into buffer; 0 at end of input.
static int read_string(char *buffer, size_t size) {
  size_t length = 0;
  for (;;) {
    char c;
    ssize_t got = read(request_fd, &c, 1);
    if (got <= 0)
      return 0;
    if (length + 1 < size)
      buffer[length++] = c;
    if (c == '\0')
      break;
  }
  buffer[length] = '\0';
  return 1;
}

static void reply(const char *key, long value) {
  char line[64];
  int length = snprintf(line, sizeof line, "%s %ld\n", key, value);
  if (write(reply_fd, line, length) != length)
    _exit(1);
}

static int redirect(const char *path, int fd, int flags) {
  int file = open(path, flags, 0644);
  if (file < 0)
    return -1;
  dup2(file, fd);
  close(file);
  return 0;
}

static int serve(int argc, char **argv, char **envp) {
  (void)argc;
  (void)argv;
  static char strings[256][4096];
  static char *child_argv[256];
  for (;;) {
    char count_text[32];
    if (!read_string(count_text, sizeof count_text))
      _exit(0);
    int count = atoi(count_text);
    if (count < 4 || count > 255)
      _exit(1);
    for (int i = 0; i < count; ++i)
      if (!read_string(strings[i], sizeof strings[i]))
        _exit(1);
    pid_t pid = fork();
    if (pid < 0)
      _exit(1);
    if (pid == 0) {
      setpgid(0, 0);
      close(request_fd);
      close(reply_fd);
      unsetenv("TILE_FORKSERVER_FDS");
      unsetenv("LD_PRELOAD");
      if (chdir(strings[0]) != 0 ||
          redirect("/dev/null", 0, O_RDONLY) != 0 ||
          redirect(strings[1], 1, O_WRONLY | O_CREAT | O_TRUNC) != 0 ||
          redirect(strings[2], 2, O_WRONLY | O_CREAT | O_TRUNC) != 0)
        _exit(125);
      int child_argc = count - 3;
      for (int i = 0; i < child_argc; ++i)
        child_argv[i] = strings[i + 3];
      child_argv[child_argc] = NULL;
      return real_main(child_argc, child_argv, environ);
    }
    reply("pid", pid);
    int status = 0;
    while (waitpid(pid, &status, 0) < 0)
      if (errno != EINTR)
        _exit(1);
    reply("status", status);
  }
  (void)envp;
}

int __libc_start_main(main_fn main, int argc, char **argv, void (*init)(void),
                      void (*fini)(void), void (*rtld_fini)(void),
                      void *stack_end) {
  start_fn start = (start_fn)dlsym(RTLD_NEXT, "__libc_start_main");
  const char *fds = getenv("TILE_FORKSERVER_FDS");
  if (!fds || sscanf(fds, "%d,%d", &request_fd, &reply_fd) != 2)
    return start(main, argc, argv, init, fini, rtld_fini, stack_end);
  real_main = main;
  return start(serve, argc, argv, init, fini, rtld_fini, stack_end);
}
