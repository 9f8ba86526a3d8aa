// Who is at the other end of a Unix socket, as the kernel recorded it when the peer connected: nothing the
// peer sends can change the answer. Linux has SO_PEERCRED (uid, gid and pid); the BSDs and macOS have
// getpeereid (uid and gid; macOS adds the pid through LOCAL_PEERPID). Where neither exists the module says
// so through `mechanism`, and the daemon refuses to serve other users. The user database lookups (getpwuid_r,
// getpwnam_r, getgrouplist, getgrnam_r) go through NSS, which Node has no API for.
#define _GNU_SOURCE
#define NAPI_VERSION 8
#include <node_api.h>

#include <errno.h>
#include <grp.h>
#include <pwd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/types.h>
#include <unistd.h>

#if defined(__linux__) && defined(SO_PEERCRED)
#define PEER_MECHANISM "SO_PEERCRED"
#elif defined(__APPLE__) || defined(__FreeBSD__) || defined(__OpenBSD__) || defined(__NetBSD__) || \
    defined(__DragonFly__)
#define PEER_MECHANISM "getpeereid"
#if defined(__APPLE__)
#include <sys/un.h>
#endif
#endif

#define MAX_GROUPS 65536

static napi_value throw_errno(napi_env env, const char *what, int error) {
  char message[256];
  snprintf(message, sizeof message, "%s: %s", what, strerror(error));
  napi_value code_value, message_value, error_value;
  const char *code = error == ENOTSOCK ? "ENOTSOCK" : error == EBADF ? "EBADF" : error == ENOTCONN ? "ENOTCONN" : "EPEERCRED";
  napi_create_string_utf8(env, code, NAPI_AUTO_LENGTH, &code_value);
  napi_create_string_utf8(env, message, NAPI_AUTO_LENGTH, &message_value);
  napi_create_error(env, code_value, message_value, &error_value);
  napi_throw(env, error_value);
  return NULL;
}

static int set_number(napi_env env, napi_value object, const char *name, double number) {
  napi_value value;
  if (napi_create_double(env, number, &value) != napi_ok) return -1;
  return napi_set_named_property(env, object, name, value) == napi_ok ? 0 : -1;
}

static int set_string(napi_env env, napi_value object, const char *name, const char *text) {
  napi_value value;
  if (napi_create_string_utf8(env, text ? text : "", NAPI_AUTO_LENGTH, &value) != napi_ok) return -1;
  return napi_set_named_property(env, object, name, value) == napi_ok ? 0 : -1;
}

static int read_int_argument(napi_env env, napi_callback_info info, size_t index, int64_t *out) {
  size_t argc = 2;
  napi_value argv[2];
  if (napi_get_cb_info(env, info, &argc, argv, NULL, NULL) != napi_ok || argc <= index) return -1;
  napi_valuetype type;
  if (napi_typeof(env, argv[index], &type) != napi_ok || type != napi_number) return -1;
  return napi_get_value_int64(env, argv[index], out) == napi_ok ? 0 : -1;
}

/** A user or group name argument; -1 unless it is a string that fits whole (a cut name is another name). */
static int read_name_argument(napi_env env, napi_callback_info info, size_t index, char *out, size_t size) {
  size_t argc = 2;
  napi_value argv[2];
  size_t length = 0;
  if (napi_get_cb_info(env, info, &argc, argv, NULL, NULL) != napi_ok || argc <= index) return -1;
  if (napi_get_value_string_utf8(env, argv[index], out, size, &length) != napi_ok) return -1;
  return length + 1 < size ? 0 : -1;
}

static napi_value peer_credentials(napi_env env, napi_callback_info info) {
  int64_t fd;
  if (read_int_argument(env, info, 0, &fd) != 0 || fd < 0 || fd > 0x7fffffff) {
    napi_throw_type_error(env, NULL, "peerCredentials(fd): fd must be a non-negative integer");
    return NULL;
  }
  double uid = -1, gid = -1, pid = -1;
#if defined(__linux__) && defined(SO_PEERCRED)
  struct ucred credentials;
  socklen_t length = sizeof credentials;
  if (getsockopt((int)fd, SOL_SOCKET, SO_PEERCRED, &credentials, &length) != 0)
    return throw_errno(env, "getsockopt(SO_PEERCRED)", errno);
  uid = credentials.uid;
  gid = credentials.gid;
  pid = credentials.pid;
#elif defined(PEER_MECHANISM)
  uid_t peer_uid;
  gid_t peer_gid;
  if (getpeereid((int)fd, &peer_uid, &peer_gid) != 0) return throw_errno(env, "getpeereid", errno);
  uid = peer_uid;
  gid = peer_gid;
#if defined(__APPLE__) && defined(LOCAL_PEERPID)
  pid_t peer_pid;
  socklen_t length = sizeof peer_pid;
  if (getsockopt((int)fd, SOL_LOCAL, LOCAL_PEERPID, &peer_pid, &length) == 0) pid = peer_pid;
#endif
#else
  (void)fd;
  return throw_errno(env, "peer credentials are not available on this platform", ENOSYS);
#endif
  napi_value result;
  napi_create_object(env, &result);
  if (set_number(env, result, "uid", uid) || set_number(env, result, "gid", gid) ||
      set_number(env, result, "pid", pid))
    return NULL;
  return result;
}

/** The user database's entry through `lookup` (getpwuid_r or getpwnam_r), or null when there is none. */
static napi_value user_entry(napi_env env, const char *what,
                             int (*lookup)(const void *key, struct passwd *, char *, size_t, struct passwd **),
                             const void *key) {
  long suggested = sysconf(_SC_GETPW_R_SIZE_MAX);
  size_t size = suggested > 0 ? (size_t)suggested : 16384;
  for (;;) {
    char *buffer = malloc(size);
    if (buffer == NULL) return throw_errno(env, what, ENOMEM);
    struct passwd entry, *found = NULL;
    int error = lookup(key, &entry, buffer, size, &found);
    if (error == ERANGE && size < (1 << 20)) {
      free(buffer);
      size *= 2;
      continue;
    }
    napi_value result;
    if (error != 0 || found == NULL) {
      free(buffer);
      if (error != 0 && error != ENOENT && error != ESRCH) return throw_errno(env, what, error);
      napi_get_null(env, &result);
      return result;
    }
    napi_create_object(env, &result);
    int failed = set_string(env, result, "name", entry.pw_name) || set_number(env, result, "uid", entry.pw_uid) ||
                 set_number(env, result, "gid", entry.pw_gid) || set_string(env, result, "home", entry.pw_dir) ||
                 set_string(env, result, "shell", entry.pw_shell);
    free(buffer);
    return failed ? NULL : result;
  }
}

static int lookup_by_id(const void *key, struct passwd *entry, char *buffer, size_t size, struct passwd **found) {
  return getpwuid_r(*(const uid_t *)key, entry, buffer, size, found);
}

static int lookup_by_name(const void *key, struct passwd *entry, char *buffer, size_t size, struct passwd **found) {
  return getpwnam_r((const char *)key, entry, buffer, size, found);
}

static napi_value user_by_id(napi_env env, napi_callback_info info) {
  int64_t uid;
  if (read_int_argument(env, info, 0, &uid) != 0 || uid < 0 || uid > 0xffffffffLL) {
    napi_throw_type_error(env, NULL, "userById(uid): uid must be a non-negative integer");
    return NULL;
  }
  uid_t key = (uid_t)uid;
  return user_entry(env, "getpwuid_r", lookup_by_id, &key);
}

static napi_value user_by_name(napi_env env, napi_callback_info info) {
  char name[256];
  if (read_name_argument(env, info, 0, name, sizeof name) != 0) {
    napi_throw_type_error(env, NULL, "userByName(name): a user name");
    return NULL;
  }
  return user_entry(env, "getpwnam_r", lookup_by_name, name);
}

static int group_name(gid_t gid, char *out, size_t out_size) {
  long suggested = sysconf(_SC_GETGR_R_SIZE_MAX);
  size_t size = suggested > 0 ? (size_t)suggested : 16384;
  for (;;) {
    char *buffer = malloc(size);
    if (buffer == NULL) return -1;
    struct group entry, *found = NULL;
    int error = getgrgid_r(gid, &entry, buffer, size, &found);
    if (error == ERANGE && size < (1 << 24)) {
      free(buffer);
      size *= 2;
      continue;
    }
    int ok = error == 0 && found != NULL;
    if (ok) snprintf(out, out_size, "%s", entry.gr_name);
    free(buffer);
    return ok ? 0 : -1;
  }
}

static napi_value group_names_of(napi_env env, napi_callback_info info) {
  char user[256];
  int64_t gid;
  if (read_name_argument(env, info, 0, user, sizeof user) != 0 || read_int_argument(env, info, 1, &gid) != 0 ||
      gid < 0 || gid > 0xffffffffLL) {
    napi_throw_type_error(env, NULL, "groupNamesOf(user, gid): a user name and a non-negative gid");
    return NULL;
  }
  int count = 64;
  gid_t *groups = NULL;
  for (;;) {
    free(groups);
    groups = malloc(sizeof(gid_t) * (size_t)count);
    if (groups == NULL) return throw_errno(env, "groupNamesOf", ENOMEM);
    int asked = count;
#if defined(__APPLE__)
    int found = getgrouplist(user, (int)gid, (int *)groups, &count);
#else
    int found = getgrouplist(user, (gid_t)gid, groups, &count);
#endif
    if (found >= 0) break;
    // Too small: glibc says how many it needs in `count`; others leave it, so grow it ourselves.
    if (count <= asked) count = asked * 2;
    if (count > MAX_GROUPS) {
      free(groups);
      return throw_errno(env, "getgrouplist", ERANGE);
    }
  }
  napi_value result;
  napi_create_array(env, &result);
  uint32_t index = 0;
  for (int i = 0; i < count; i++) {
    char name[256];
    if (group_name(groups[i], name, sizeof name) != 0) continue;
    napi_value value;
    napi_create_string_utf8(env, name, NAPI_AUTO_LENGTH, &value);
    napi_set_element(env, result, index++, value);
  }
  free(groups);
  return result;
}

static napi_value group_id_of(napi_env env, napi_callback_info info) {
  char name[256];
  if (read_name_argument(env, info, 0, name, sizeof name) != 0) {
    napi_throw_type_error(env, NULL, "groupIdOf(name): a group name");
    return NULL;
  }
  long suggested = sysconf(_SC_GETGR_R_SIZE_MAX);
  size_t size = suggested > 0 ? (size_t)suggested : 16384;
  for (;;) {
    char *buffer = malloc(size);
    if (buffer == NULL) return throw_errno(env, "groupIdOf", ENOMEM);
    struct group entry, *found = NULL;
    int error = getgrnam_r(name, &entry, buffer, size, &found);
    if (error == ERANGE && size < (1 << 24)) {
      free(buffer);
      size *= 2;
      continue;
    }
    napi_value result;
    if (error == 0 && found != NULL)
      napi_create_double(env, entry.gr_gid, &result);
    else
      napi_get_null(env, &result);
    free(buffer);
    return result;
  }
}

static napi_value init(napi_env env, napi_value exports) {
  napi_value mechanism;
#ifdef PEER_MECHANISM
  napi_create_string_utf8(env, PEER_MECHANISM, NAPI_AUTO_LENGTH, &mechanism);
#else
  napi_get_null(env, &mechanism);
#endif
  napi_property_descriptor properties[] = {
      {"mechanism", NULL, NULL, NULL, NULL, mechanism, napi_enumerable, NULL},
      {"peerCredentials", NULL, peer_credentials, NULL, NULL, NULL, napi_enumerable, NULL},
      {"userById", NULL, user_by_id, NULL, NULL, NULL, napi_enumerable, NULL},
      {"userByName", NULL, user_by_name, NULL, NULL, NULL, napi_enumerable, NULL},
      {"groupNamesOf", NULL, group_names_of, NULL, NULL, NULL, napi_enumerable, NULL},
      {"groupIdOf", NULL, group_id_of, NULL, NULL, NULL, napi_enumerable, NULL},
  };
  napi_define_properties(env, exports, sizeof properties / sizeof properties[0], properties);
  return exports;
}

NAPI_MODULE(NODE_GYP_MODULE_NAME, init)
