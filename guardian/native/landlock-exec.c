/*
 * holdfast-landlock — applies a Landlock ruleset to itself, then execs a program (issue 17,
 * docs/sandbox.md). Used by the guardian where bubblewrap cannot run (user namespaces blocked).
 *
 *   holdfast-landlock --probe
 *       prints the kernel's Landlock ABI version and exits 0 (1 when Landlock is unavailable).
 *   holdfast-landlock [--rw PATH]... [--net-off] [--seccomp FILE] -- PROGRAM [ARG]...
 *       every write-type file access is denied except beneath the --rw paths (files or folders;
 *       missing ones are skipped); reading and executing stay allowed everywhere. With --net-off,
 *       TCP connect and bind are denied (needs ABI 4). With ABI 6, signals to processes outside
 *       the sandbox and abstract Unix sockets outside it are denied too. With --seccomp, the
 *       classic-BPF program in FILE (raw struct sock_filter[], guardian/src/seccomp.ts: TIOCSTI
 *       fails with EPERM) is installed too. Then PROGRAM is exec'd.
 *
 * Exit status 125 when the rules cannot be applied (the message says why); the program is never
 * run unconfined. Self-contained: the constants come from the kernel UAPI (linux/landlock.h,
 * ABI 1-6) so it builds with old headers.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#ifndef __NR_landlock_create_ruleset
#define __NR_landlock_create_ruleset 444
#define __NR_landlock_add_rule 445
#define __NR_landlock_restrict_self 446
#endif

#define CREATE_RULESET_VERSION (1U << 0)
#define RULE_PATH_BENEATH 1

#define FS_EXECUTE (1ULL << 0)
#define FS_WRITE_FILE (1ULL << 1)
#define FS_READ_FILE (1ULL << 2)
#define FS_READ_DIR (1ULL << 3)
#define FS_REMOVE_DIR (1ULL << 4)
#define FS_REMOVE_FILE (1ULL << 5)
#define FS_MAKE_CHAR (1ULL << 6)
#define FS_MAKE_DIR (1ULL << 7)
#define FS_MAKE_REG (1ULL << 8)
#define FS_MAKE_SOCK (1ULL << 9)
#define FS_MAKE_FIFO (1ULL << 10)
#define FS_MAKE_BLOCK (1ULL << 11)
#define FS_MAKE_SYM (1ULL << 12)
#define FS_REFER (1ULL << 13)    /* ABI 2 */
#define FS_TRUNCATE (1ULL << 14) /* ABI 3 */
#define NET_BIND_TCP (1ULL << 0)    /* ABI 4 */
#define NET_CONNECT_TCP (1ULL << 1) /* ABI 4 */
#define SCOPE_ABSTRACT_UNIX_SOCKET (1ULL << 0) /* ABI 6 */
#define SCOPE_SIGNAL (1ULL << 1)               /* ABI 6 */

#define PR_SET_SECCOMP_ 22
#define SECCOMP_MODE_FILTER_ 2

struct bpf_insn_ {
  uint16_t code;
  uint8_t jt;
  uint8_t jf;
  uint32_t k;
};

struct bpf_prog_ {
  unsigned short len;
  struct bpf_insn_ *filter;
};

struct ruleset_attr {
  uint64_t handled_access_fs;
  uint64_t handled_access_net;
  uint64_t scoped;
};

struct path_beneath_attr {
  uint64_t allowed_access;
  int32_t parent_fd;
} __attribute__((packed));

static int abi_version(void) {
  long v = syscall(__NR_landlock_create_ruleset, NULL, 0, CREATE_RULESET_VERSION);
  return v < 0 ? -errno : (int)v;
}

static void fail(const char *what) {
  fprintf(stderr, "holdfast-landlock: %s\n", what);
  exit(125);
}

int main(int argc, char **argv) {
  int abi = abi_version();
  if (argc == 2 && strcmp(argv[1], "--probe") == 0) {
    if (abi <= 0) {
      fprintf(stderr, "holdfast-landlock: Landlock is not available (%s)\n", strerror(abi == 0 ? ENOSYS : -abi));
      return 1;
    }
    printf("%d\n", abi);
    return 0;
  }
  int net_off = 0, first_rw = 0, n_rw = 0, prog = -1;
  const char *seccomp_file = NULL;
  for (int i = 1; i < argc; i++) {
    if (strcmp(argv[i], "--") == 0) {
      prog = i + 1;
      break;
    } else if (strcmp(argv[i], "--net-off") == 0) {
      net_off = 1;
    } else if (strcmp(argv[i], "--seccomp") == 0 && i + 1 < argc) {
      seccomp_file = argv[++i];
    } else if (strcmp(argv[i], "--rw") == 0 && i + 1 < argc) {
      if (n_rw == 0) first_rw = i;
      n_rw++;
      i++;
    } else {
      fprintf(stderr, "holdfast-landlock: unknown argument %s\nusage: holdfast-landlock --probe | [--rw PATH]... [--net-off] [--seccomp FILE] -- PROGRAM [ARG]...\n", argv[i]);
      return 125;
    }
  }
  if (prog < 0 || prog >= argc) fail("no program given after --");
  if (abi <= 0) fail("Landlock is not available in this kernel (or disabled at boot: lsm=)");
  if (net_off && abi < 4) fail("this kernel's Landlock (ABI < 4) cannot deny TCP; network: off cannot be enforced");
  static struct bpf_insn_ filter[512];
  struct bpf_prog_ seccomp_prog = {.len = 0, .filter = filter};
  if (seccomp_file) {
    int fd = open(seccomp_file, O_RDONLY | O_CLOEXEC);
    if (fd < 0) fail("cannot open the seccomp filter file");
    ssize_t n = read(fd, filter, sizeof(filter));
    close(fd);
    if (n <= 0 || n % (ssize_t)sizeof(struct bpf_insn_) != 0) fail("the seccomp filter file is not a BPF program");
    seccomp_prog.len = (unsigned short)(n / (ssize_t)sizeof(struct bpf_insn_));
  }

  uint64_t write_fs = FS_WRITE_FILE | FS_REMOVE_DIR | FS_REMOVE_FILE | FS_MAKE_CHAR | FS_MAKE_DIR | FS_MAKE_REG | FS_MAKE_SOCK | FS_MAKE_FIFO |
                      FS_MAKE_BLOCK | FS_MAKE_SYM;
  if (abi >= 2) write_fs |= FS_REFER;
  if (abi >= 3) write_fs |= FS_TRUNCATE;
  struct ruleset_attr attr = {.handled_access_fs = write_fs, .handled_access_net = 0, .scoped = 0};
  size_t attr_size = sizeof(uint64_t);
  if (net_off) {
    attr.handled_access_net = NET_BIND_TCP | NET_CONNECT_TCP;
    attr_size = 2 * sizeof(uint64_t);
  }
  if (abi >= 6) {
    attr.scoped = SCOPE_ABSTRACT_UNIX_SOCKET | SCOPE_SIGNAL;
    attr_size = sizeof(attr);
  }
  int ruleset = (int)syscall(__NR_landlock_create_ruleset, &attr, attr_size, 0);
  if (ruleset < 0) {
    fprintf(stderr, "holdfast-landlock: cannot create a ruleset: %s\n", strerror(errno));
    return 125;
  }
  for (int i = first_rw; n_rw > 0 && i < prog - 1; i++) {
    if (strcmp(argv[i], "--rw") != 0) continue;
    const char *path = argv[++i];
    int fd = open(path, O_PATH | O_CLOEXEC);
    if (fd < 0) continue; /* a writable path that does not exist: nothing to allow */
    struct stat st;
    if (fstat(fd, &st) != 0) {
      close(fd);
      continue;
    }
    struct path_beneath_attr rule = {.allowed_access = write_fs, .parent_fd = fd};
    /* Rights that only make sense on folders are refused by the kernel on files. */
    if (!S_ISDIR(st.st_mode)) rule.allowed_access = write_fs & (FS_WRITE_FILE | FS_TRUNCATE);
    if (syscall(__NR_landlock_add_rule, ruleset, RULE_PATH_BENEATH, &rule, 0) != 0) {
      fprintf(stderr, "holdfast-landlock: cannot allow writes beneath %s: %s\n", path, strerror(errno));
      return 125;
    }
    close(fd);
  }
  if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0) fail("cannot set no_new_privs");
  if (syscall(__NR_landlock_restrict_self, ruleset, 0) != 0) {
    fprintf(stderr, "holdfast-landlock: cannot enforce the ruleset: %s\n", strerror(errno));
    return 125;
  }
  close(ruleset);
  if (seccomp_prog.len > 0 && prctl(PR_SET_SECCOMP_, SECCOMP_MODE_FILTER_, &seccomp_prog, 0, 0) != 0) {
    fprintf(stderr, "holdfast-landlock: cannot install the seccomp filter: %s\n", strerror(errno));
    return 125;
  }
  execvp(argv[prog], &argv[prog]);
  fprintf(stderr, "holdfast-landlock: cannot run %s: %s\n", argv[prog], strerror(errno));
  return 127;
}
