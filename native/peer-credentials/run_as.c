// sched-run-as UID GID USER DIR FILE [ARG...]: how a daemon running as root starts a job as the job's owner.
// Node's spawn() can set a uid and gid, but libuv then drops every supplementary group (setgroups(0)), and
// process.setgroups() would change the whole daemon. So a job goes through this program: it takes USER's
// groups from the user database (initgroups), then GID, then UID, checks that root is gone for good, enters
// DIR (unless it is empty) as that user, so a folder they may not enter is refused, and only then execs FILE
// (searched on the PATH of the environment it was given). Whatever fails, it never
// execs: it writes "STEP ERRNO" to fd 3 when fd 3 is open (the daemon's status pipe; stderr otherwise)
// and exits 127. On success fd 3 is closed by the exec, so the daemon reads nothing but its end.
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/types.h>
#include <unistd.h>

#define STATUS_FD 3
#define FAILED 127

static int status_fd(void) { return fcntl(STATUS_FD, F_GETFD) == -1 ? STDERR_FILENO : STATUS_FD; }

static void fail(const char *step, int error) {
  char line[128];
  int length = snprintf(line, sizeof line, "%s %d\n", step, error);
  if (length > 0) {
    ssize_t written = write(status_fd(), line, (size_t)length);
    (void)written;
  }
  _exit(FAILED);
}

static int parse_id(const char *text, unsigned long *out) {
  if (text == NULL || *text == '\0') return -1;
  char *end = NULL;
  errno = 0;
  unsigned long value = strtoul(text, &end, 10);
  if (errno != 0 || *end != '\0' || text[0] == '-' || value > 0xfffffffeUL) return -1;
  *out = value;
  return 0;
}

int main(int argc, char **argv) {
  unsigned long uid, gid;
  if (argc < 6 || parse_id(argv[1], &uid) != 0 || parse_id(argv[2], &gid) != 0 || argv[3][0] == '\0')
    fail("usage", EINVAL);
  const char *user = argv[3];

  if (initgroups(user, (gid_t)gid) != 0) fail("initgroups", errno);
  if (setgid((gid_t)gid) != 0) fail("setgid", errno);
  if (setuid((uid_t)uid) != 0) fail("setuid", errno);
  // setuid() by root changes all three uids; were it to leave one behind, getting root back would succeed.
  if (getuid() != (uid_t)uid || geteuid() != (uid_t)uid || getgid() != (gid_t)gid ||
      getegid() != (gid_t)gid)
    fail("verify", EPERM);
  if (uid != 0 && (setuid(0) == 0 || seteuid(0) == 0)) fail("verify", EPERM);

  if (argv[4][0] != '\0' && chdir(argv[4]) != 0) fail("chdir", errno);
  if (fcntl(STATUS_FD, F_GETFD) != -1 && fcntl(STATUS_FD, F_SETFD, FD_CLOEXEC) != 0)
    fail("status", errno);
  execvp(argv[5], &argv[5]);
  fail("exec", errno);
  return FAILED;
}
