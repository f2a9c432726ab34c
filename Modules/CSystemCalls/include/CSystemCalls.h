// The few system interfaces Swift cannot import from Glibc by itself: epoll (its header is
// not in the Glibc module, and `struct epoll_event` is packed on x86_64), the
// open-file-description lock (`F_OFD_SETLK` needs `_GNU_SOURCE`) and a spawn's closefrom. Each function keeps the
// C convention: -1 with `errno` set on failure, so `Posix.syscall` wraps it like any other call.
#ifndef CSYSTEMCALLS_H
#define CSYSTEMCALLS_H

#include <spawn.h>
#include <stdint.h>

/// One ready descriptor as `epoll_wait` reports it, in a layout Swift reads directly.
typedef struct {
    uint32_t events;
    uint64_t data;
} csc_ready_event;

/// The most events one `csc_epoll_wait` returns.
#define CSC_EPOLL_MAX_EVENTS 512

/// The `op` values of `csc_epoll_ctl`.
#define CSC_EPOLL_ADD 1
#define CSC_EPOLL_DELETE 2
#define CSC_EPOLL_MODIFY 3

/// `epoll_create1(EPOLL_CLOEXEC)`; -1 with `ENOSYS` where there is no epoll.
int csc_epoll_create(void);

/// `epoll_ctl` with the event mask (poll's bit values, which epoll shares) and the 64-bit id.
int csc_epoll_ctl(int epfd, int op, int fd, uint32_t events, uint64_t data);

/// `epoll_wait` into `ready` (room for `capacity`, at most `CSC_EPOLL_MAX_EVENTS`); returns how many.
int csc_epoll_wait(int epfd, csc_ready_event *ready, int capacity, int timeout_ms);

/// Takes an exclusive open-file-description lock on the whole file without waiting
/// (`fcntl(F_OFD_SETLK)`): 0 when taken, -1 with `EAGAIN`/`EACCES` when another holds it.
int csc_try_lock_file(int fd);

/// 1 when another open file description holds a lock that `csc_try_lock_file` on `fd` would
/// conflict with (`F_OFD_GETLK`: only asks, takes nothing), 0 when none does, -1 with errno set.
int csc_lock_held(int fd);

/// Adds "close every descriptor from `from` up" to a spawn's file actions
/// (`posix_spawn_file_actions_addclosefrom_np`, glibc 2.34+, which needs `_GNU_SOURCE`); returns
/// the error number (0: added; `ENOSYS` where the C library lacks it).
int csc_spawn_close_from(posix_spawn_file_actions_t *actions, int from);

/// Adds "change to the directory `path`" to a spawn's file actions
/// (`posix_spawn_file_actions_addchdir_np`, glibc 2.29+, which needs `_GNU_SOURCE`); returns the
/// error number (0: added; `ENOSYS` where the C library lacks it).
int csc_spawn_chdir(posix_spawn_file_actions_t *actions, const char *path);

/// Names the calling thread (`pthread_setname_np`; Linux keeps the first 15 bytes).
void csc_name_thread(const char *name);

// The calling thread's kernel id (`gettid`, which glibc declares only under _GNU_SOURCE), the
// id `setpriority` takes to change one thread's nice value.
int csc_thread_id(void);

#endif

/// 1 when `signal` is at its default action (neither ignored nor handled), 0 when not, -1 on error.
int csc_signal_is_default(int signal);

/// Gives the heap's free pages back to the system (glibc's malloc_trim); 0 elsewhere.
int csc_release_free_heap(void);

/// The bytes an unprivileged writer may still use on the filesystem holding `path` (statvfs's
/// f_bavail × f_frsize) into *free; 0, or -1 with errno set.
int csc_free_bytes(const char *path, unsigned long long *free);
