// Starts a job's process with posix_spawn, and tells when it exits. Node's spawn() forks: the kernel copies
// the page tables of the whole spawning process, and every page either side then writes is a copy-on-write
// fault. From a 40 MB Node process that caps spawning near 650/s on two cores; glibc's posix_spawn
// (clone with CLONE_VM | CLONE_VFORK) copies nothing and reaches about 2,500/s on the same machine.
//
// The child gets what libuv gives a detached child: its own session (so pid = process group), every signal
// at its default disposition and none blocked, stdin from a pipe or /dev/null, stdout and stderr on pipes,
// optionally fd 3 on a pipe (sched-run-as reports a failure there), no other descriptor (closefrom), the
// given folder and environment; a name without a slash is looked up on the PATH of that environment, and a
// script without a `#!` line is run by /bin/sh, as execvp would. Its exit is learnt from a pidfd polled on
// Node's own event loop (libuv's SIGCHLD handling only knows children libuv started), and reaped there; the
// callback gets the exit code or signal number.
#define _GNU_SOURCE
#define NAPI_VERSION 8
#include <node_api.h>
#include <uv.h>

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <spawn.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>

#if defined(__linux__) && defined(SYS_pidfd_open) && defined(__GLIBC__) && __GLIBC_PREREQ(2, 34)
#define SPAWN_SUPPORTED 1
#else
#define SPAWN_SUPPORTED 0
#endif

#define DEFAULT_PATH "/usr/bin:/bin"

static napi_value throw_code(napi_env env, const char *code, const char *message) {
  napi_value code_value, message_value, error_value;
  napi_create_string_utf8(env, code, NAPI_AUTO_LENGTH, &code_value);
  napi_create_string_utf8(env, message, NAPI_AUTO_LENGTH, &message_value);
  napi_create_error(env, code_value, message_value, &error_value);
  napi_throw(env, error_value);
  return NULL;
}

static napi_value throw_errno(napi_env env, const char *what, int error) {
  char message[512];
  snprintf(message, sizeof message, "%s: %s", what, strerror(error));
  // The errno's own name (ENOENT, EACCES, ENOEXEC, ...), as Node's errors carry it; glibc 2.32 names
  // every errno, libuv only those it maps.
#if defined(__GLIBC__) && __GLIBC_PREREQ(2, 32)
  const char *name = strerrorname_np(error);
  return throw_code(env, name != NULL ? name : uv_err_name(-error), message);
#else
  return throw_code(env, uv_err_name(-error), message);
#endif
}

#if SPAWN_SUPPORTED

/** A string argument, malloc'd; NULL (with a TypeError thrown) when it is not a string. */
static char *string_argument(napi_env env, napi_value value, const char *what) {
  size_t length = 0;
  if (napi_get_value_string_utf8(env, value, NULL, 0, &length) != napi_ok) {
    napi_throw_type_error(env, NULL, what);
    return NULL;
  }
  char *text = malloc(length + 1);
  if (text == NULL) {
    throw_errno(env, "spawnChild", ENOMEM);
    return NULL;
  }
  napi_get_value_string_utf8(env, value, text, length + 1, &length);
  if (strlen(text) != length) {  // an embedded NUL would silently cut the string short in the child
    free(text);
    napi_throw_type_error(env, NULL, what);
    return NULL;
  }
  return text;
}

static void free_strings(char **strings) {
  if (strings == NULL) return;
  for (char **each = strings; *each != NULL; each++) free(*each);
  free(strings);
}

/** A NULL-terminated array of the strings in a JS array; NULL (with an error thrown) otherwise. */
static char **string_array(napi_env env, napi_value array, const char *what) {
  bool is_array = false;
  uint32_t count = 0;
  if (napi_is_array(env, array, &is_array) != napi_ok || !is_array ||
      napi_get_array_length(env, array, &count) != napi_ok) {
    napi_throw_type_error(env, NULL, what);
    return NULL;
  }
  char **strings = calloc((size_t)count + 1, sizeof(char *));
  if (strings == NULL) {
    throw_errno(env, "spawnChild", ENOMEM);
    return NULL;
  }
  for (uint32_t index = 0; index < count; index++) {
    napi_value element;
    napi_get_element(env, array, index, &element);
    strings[index] = string_argument(env, element, what);
    if (strings[index] == NULL) {
      free_strings(strings);
      return NULL;
    }
  }
  return strings;
}

/** One child being watched: its pidfd polled on the loop until it exits. */
typedef struct {
  uv_poll_t poll;
  int pidfd;
  pid_t pid;
  napi_env env;
  napi_ref on_exit;
  napi_async_context async_context;
} child_watch;

static void free_watch(uv_handle_t *handle) { free(handle->data); }

/** Stops watching and frees the watch once libuv lets go of its handle; the async context is the caller's. */
static void end_watch(child_watch *watch) {
  uv_poll_stop(&watch->poll);
  close(watch->pidfd);
  napi_delete_reference(watch->env, watch->on_exit);
  uv_close((uv_handle_t *)&watch->poll, free_watch);
}

static void on_pidfd_readable(uv_poll_t *poll, int status, int events) {
  (void)status;
  (void)events;
  child_watch *watch = poll->data;
  int wait_status = 0;
  pid_t reaped = waitpid(watch->pid, &wait_status, WNOHANG);
  if (reaped == 0) return;  // readable before the exit is waitable: a later turn has it
  if (reaped < 0 && errno == EINTR) return;
  napi_env env = watch->env;
  napi_handle_scope scope;
  napi_open_handle_scope(env, &scope);
  napi_value code, signal_number, callback, global, result;
  napi_get_null(env, &code);
  napi_get_null(env, &signal_number);
  if (reaped > 0 && WIFEXITED(wait_status)) napi_create_int32(env, WEXITSTATUS(wait_status), &code);
  if (reaped > 0 && WIFSIGNALED(wait_status)) napi_create_int32(env, WTERMSIG(wait_status), &signal_number);
  napi_get_reference_value(env, watch->on_exit, &callback);
  napi_get_global(env, &global);
  napi_async_context async_context = watch->async_context;
  napi_value argv[2] = {code, signal_number};
  end_watch(watch);
  // make_callback runs the microtasks the callback queues, as any libuv callback of Node's would; an
  // exception it throws goes to 'uncaughtException', as one thrown from any other event would.
  if (napi_make_callback(env, async_context, global, callback, 2, argv, &result) == napi_pending_exception) {
    napi_value exception;
    napi_get_and_clear_last_exception(env, &exception);
    napi_fatal_exception(env, exception);
  }
  napi_async_destroy(env, async_context);
  napi_close_handle_scope(env, scope);
}

/** Pipes for the child's descriptors: [child's end, parent's end], or -1 where the child gets none. */
typedef struct {
  int stdin_pipe[2];
  int stdout_pipe[2];
  int stderr_pipe[2];
  int status_pipe[2];
} child_pipes;

static void close_pair(int pair[2]) {
  for (int side = 0; side < 2; side++)
    if (pair[side] >= 0) close(pair[side]), pair[side] = -1;
}

static void close_pipes(child_pipes *pipes) {
  close_pair(pipes->stdin_pipe);
  close_pair(pipes->stdout_pipe);
  close_pair(pipes->stderr_pipe);
  close_pair(pipes->status_pipe);
}

/** A pipe as [child's end, parent's end]; both close-on-exec, the child's dup2 onto its slot clears it. */
static int open_pipe(int pair[2], bool child_reads) {
  int fds[2];
  if (pipe2(fds, O_CLOEXEC) != 0) return errno;
  pair[0] = child_reads ? fds[0] : fds[1];
  pair[1] = child_reads ? fds[1] : fds[0];
  return 0;
}

static const char *path_of(char **envp) {
  for (char **each = envp; *each != NULL; each++)
    if (strncmp(*each, "PATH=", 5) == 0) return *each + 5;
  return DEFAULT_PATH;
}

/**
 * posix_spawn of the program at `path`; a file the kernel cannot execute (ENOEXEC: a script without a
 * `#!` line) is run by /bin/sh instead, as execvp does and so as cron and Node's own spawn do.
 */
static int spawn_program(pid_t *pid, const char *path, const posix_spawn_file_actions_t *actions,
                         const posix_spawnattr_t *attributes, char **argv, char **envp) {
  int result = posix_spawn(pid, path, actions, attributes, argv, envp);
  if (result != ENOEXEC) return result;
  size_t count = 0;
  while (argv[count] != NULL) count++;
  // /bin/sh, the script, then the arguments after argv[0]: count + 2 with the NULL.
  char **shell_argv = calloc(count + 2, sizeof(char *));
  if (shell_argv == NULL) return ENOMEM;
  shell_argv[0] = (char *)"/bin/sh";
  shell_argv[1] = (char *)path;
  for (size_t index = 1; index < count; index++) shell_argv[index + 1] = argv[index];
  result = posix_spawn(pid, "/bin/sh", actions, attributes, shell_argv, envp);
  free(shell_argv);
  return result;
}

/**
 * posix_spawn of `file`, searched as execvp searches: a name with a slash as it is (relative to the child's
 * folder), any other along PATH, skipping entries where it is missing and remembering one where it may not
 * be run (EACCES wins over ENOENT when nothing else is found).
 */
static int spawn_on_path(pid_t *pid, const char *file, const posix_spawn_file_actions_t *actions,
                         const posix_spawnattr_t *attributes, char **argv, char **envp) {
  if (strchr(file, '/') != NULL || *file == '\0')
    return *file == '\0' ? ENOENT : spawn_program(pid, file, actions, attributes, argv, envp);
  const char *path = path_of(envp);
  size_t file_length = strlen(file);
  int result = ENOENT;
  bool denied = false;
  for (const char *entry = path;; entry++) {
    const char *end = strchrnul(entry, ':');
    size_t entry_length = (size_t)(end - entry);
    char *candidate = malloc(entry_length + file_length + 3);
    if (candidate == NULL) return ENOMEM;
    if (entry_length == 0)
      snprintf(candidate, file_length + 3, "./%s", file);
    else
      snprintf(candidate, entry_length + file_length + 2, "%.*s/%s", (int)entry_length, entry, file);
    struct stat info;
    // A relative entry is relative to the child's folder, which this process is not in: let the spawn try.
    bool may_exist = candidate[0] != '/' || stat(candidate, &info) == 0 || (errno != ENOENT && errno != ENOTDIR);
    if (may_exist) {
      result = spawn_program(pid, candidate, actions, attributes, argv, envp);
      if (result == EACCES) denied = true;
    }
    free(candidate);
    if (may_exist && result != ENOENT && result != ENOTDIR && result != EACCES) return result;
    if (*end == '\0') break;
    entry = end;
  }
  return denied ? EACCES : ENOENT;
}

static int spawn_with_pipes(pid_t *pid, const char *file, char **argv, char **envp, const char *cwd,
                            const child_pipes *pipes) {
  posix_spawn_file_actions_t actions;
  posix_spawnattr_t attributes;
  int result = posix_spawn_file_actions_init(&actions);
  if (result != 0) return result;
  result = posix_spawnattr_init(&attributes);
  if (result != 0) {
    posix_spawn_file_actions_destroy(&actions);
    return result;
  }
  if (pipes->stdin_pipe[0] >= 0)
    result = posix_spawn_file_actions_adddup2(&actions, pipes->stdin_pipe[0], STDIN_FILENO);
  else
    result = posix_spawn_file_actions_addopen(&actions, STDIN_FILENO, "/dev/null", O_RDONLY, 0);
  if (result == 0) result = posix_spawn_file_actions_adddup2(&actions, pipes->stdout_pipe[0], STDOUT_FILENO);
  if (result == 0) result = posix_spawn_file_actions_adddup2(&actions, pipes->stderr_pipe[0], STDERR_FILENO);
  if (result == 0 && pipes->status_pipe[0] >= 0)
    result = posix_spawn_file_actions_adddup2(&actions, pipes->status_pipe[0], 3);
  if (result == 0)
    result = posix_spawn_file_actions_addclosefrom_np(&actions, pipes->status_pipe[0] >= 0 ? 4 : 3);
  if (result == 0 && cwd != NULL) result = posix_spawn_file_actions_addchdir_np(&actions, cwd);
  sigset_t none, all;
  sigemptyset(&none);
  sigfillset(&all);
  if (result == 0) result = posix_spawnattr_setsigmask(&attributes, &none);
  if (result == 0) result = posix_spawnattr_setsigdefault(&attributes, &all);
  if (result == 0)
    result = posix_spawnattr_setflags(&attributes,
                                      POSIX_SPAWN_SETSID | POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF);
  if (result == 0) result = spawn_on_path(pid, file, &actions, &attributes, argv, envp);
  posix_spawnattr_destroy(&attributes);
  posix_spawn_file_actions_destroy(&actions);
  return result;
}

static void set_fd(napi_env env, napi_value object, const char *name, int fd) {
  napi_value value;
  napi_create_int32(env, fd, &value);
  napi_set_named_property(env, object, name, value);
}

/**
 * spawnChild(file, argv, envp, cwd, stdinPipe, statusPipe, onExit): the child's pid and the parent's ends
 * of its pipes (-1 where it has none). Throws with `code` set to the errno name when it cannot start.
 */
static napi_value spawn_child(napi_env env, napi_callback_info info) {
  size_t argc = 7;
  napi_value args[7];
  napi_get_cb_info(env, info, &argc, args, NULL, NULL);
  const char *usage = "spawnChild(file, argv, envp, cwd, stdinPipe, statusPipe, onExit)";
  napi_valuetype cwd_type, callback_type;
  bool stdin_pipe = false, status_pipe = false;
  if (argc < 7 || napi_typeof(env, args[3], &cwd_type) != napi_ok ||
      napi_typeof(env, args[6], &callback_type) != napi_ok || callback_type != napi_function ||
      napi_get_value_bool(env, args[4], &stdin_pipe) != napi_ok ||
      napi_get_value_bool(env, args[5], &status_pipe) != napi_ok) {
    napi_throw_type_error(env, NULL, usage);
    return NULL;
  }
  napi_value result = NULL;
  char *file = NULL, *cwd = NULL, **argv = NULL, **envp = NULL;
  child_watch *watch = NULL;
  child_pipes pipes = {{-1, -1}, {-1, -1}, {-1, -1}, {-1, -1}};
  int pidfd = -1;
  if ((file = string_argument(env, args[0], usage)) == NULL) goto done;
  if ((argv = string_array(env, args[1], usage)) == NULL) goto done;
  if ((envp = string_array(env, args[2], usage)) == NULL) goto done;
  if (cwd_type != napi_null && (cwd = string_argument(env, args[3], usage)) == NULL) goto done;

  int error = 0;
  if (stdin_pipe) error = open_pipe(pipes.stdin_pipe, true);
  if (error == 0) error = open_pipe(pipes.stdout_pipe, false);
  if (error == 0) error = open_pipe(pipes.stderr_pipe, false);
  if (error == 0 && status_pipe) error = open_pipe(pipes.status_pipe, false);
  if (error != 0) {
    throw_errno(env, "spawnChild: pipe", error);
    goto done;
  }
  watch = calloc(1, sizeof *watch);
  if (watch == NULL) {
    throw_errno(env, "spawnChild", ENOMEM);
    goto done;
  }
  pid_t pid = 0;
  error = spawn_with_pipes(&pid, file, argv, envp, cwd, &pipes);
  if (error != 0) {
    throw_errno(env, file, error);
    goto done;
  }
  // From here the child exists: whatever fails, it must still be reaped, so nothing below gives up on it.
  pidfd = (int)syscall(SYS_pidfd_open, pid, 0);
  uv_loop_t *loop = NULL;
  napi_get_uv_event_loop(env, &loop);
  if (pidfd < 0 || uv_poll_init(loop, &watch->poll, pidfd) != 0) {
    // Cannot happen once `supported` said yes, short of running out of descriptors: stop the child and
    // reap it now rather than leave a zombie nobody waits for.
    int saved = pidfd < 0 ? errno : EMFILE;
    kill(-pid, SIGKILL);
    while (waitpid(pid, NULL, 0) < 0 && errno == EINTR) {
    }
    throw_errno(env, "spawnChild: watching the child", saved);
    goto done;
  }
  watch->poll.data = watch;
  watch->pidfd = pidfd;
  watch->pid = pid;
  watch->env = env;
  napi_create_reference(env, args[6], 1, &watch->on_exit);
  napi_value resource_name;
  napi_create_string_utf8(env, "schedChildExit", NAPI_AUTO_LENGTH, &resource_name);
  napi_async_init(env, NULL, resource_name, &watch->async_context);
  uv_poll_start(&watch->poll, UV_READABLE, on_pidfd_readable);
  pidfd = -1;

  napi_create_object(env, &result);
  set_fd(env, result, "pid", pid);
  set_fd(env, result, "stdin", pipes.stdin_pipe[1]);
  set_fd(env, result, "stdout", pipes.stdout_pipe[1]);
  set_fd(env, result, "stderr", pipes.stderr_pipe[1]);
  set_fd(env, result, "status", pipes.status_pipe[1]);
  // The parent's ends now belong to the caller; only the child's are closed below.
  pipes.stdin_pipe[1] = pipes.stdout_pipe[1] = pipes.stderr_pipe[1] = pipes.status_pipe[1] = -1;
  watch = NULL;

done:
  if (pidfd >= 0) close(pidfd);
  free(watch);
  close_pipes(&pipes);
  free(file);
  free(cwd);
  free_strings(argv);
  free_strings(envp);
  return result;
}

/** Whether this kernel has pidfd_open (Linux 5.3): asked once, of this process's own pid. */
static bool pidfds_work(void) {
  int fd = (int)syscall(SYS_pidfd_open, getpid(), 0);
  if (fd < 0) return false;
  close(fd);
  return true;
}

#else

static napi_value spawn_child(napi_env env, napi_callback_info info) {
  (void)info;
  return throw_code(env, "ENOSYS", "spawnChild: this platform has no pidfd_open or posix_spawn extensions");
}

static bool pidfds_work(void) { return false; }

#endif

static napi_value init(napi_env env, napi_value exports) {
  napi_value spawn_function, supported;
  napi_create_function(env, "spawnChild", NAPI_AUTO_LENGTH, spawn_child, NULL, &spawn_function);
  napi_set_named_property(env, exports, "spawnChild", spawn_function);
  napi_get_boolean(env, pidfds_work(), &supported);
  napi_set_named_property(env, exports, "supported", supported);
  return exports;
}

NAPI_MODULE(NODE_GYP_MODULE_NAME, init)
