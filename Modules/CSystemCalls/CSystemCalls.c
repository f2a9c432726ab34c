#define _GNU_SOURCE
#include "CSystemCalls.h"

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <string.h>

#ifdef __linux__
#include <sys/epoll.h>

int csc_epoll_create(void) { return epoll_create1(EPOLL_CLOEXEC); }

int csc_epoll_ctl(int epfd, int op, int fd, uint32_t events, uint64_t data) {
    struct epoll_event event;
    memset(&event, 0, sizeof event);
    event.events = events;
    event.data.u64 = data;
    return epoll_ctl(epfd, op, fd, &event);
}

int csc_epoll_wait(int epfd, csc_ready_event *ready, int capacity, int timeout_ms) {
    struct epoll_event events[CSC_EPOLL_MAX_EVENTS];
    if (capacity > CSC_EPOLL_MAX_EVENTS) capacity = CSC_EPOLL_MAX_EVENTS;
    int n = epoll_wait(epfd, events, capacity, timeout_ms);
    for (int i = 0; i < n; i++) {  // copying leaves errno alone
        ready[i].events = events[i].events;
        ready[i].data = events[i].data.u64;
    }
    return n;
}

int csc_try_lock_file(int fd) {
    struct flock request;
    memset(&request, 0, sizeof request);
    request.l_type = F_WRLCK;
    request.l_whence = SEEK_SET;
    return fcntl(fd, F_OFD_SETLK, &request);
}

int csc_lock_held(int fd) {
    struct flock request;
    memset(&request, 0, sizeof request);
    request.l_type = F_WRLCK;
    request.l_whence = SEEK_SET;
    if (fcntl(fd, F_OFD_GETLK, &request) == -1) return -1;
    return request.l_type != F_UNLCK;
}
#else
int csc_epoll_create(void) { errno = ENOSYS; return -1; }
int csc_epoll_ctl(int epfd, int op, int fd, uint32_t events, uint64_t data) { errno = ENOSYS; return -1; }
int csc_epoll_wait(int epfd, csc_ready_event *ready, int capacity, int timeout_ms) { errno = ENOSYS; return -1; }

int csc_try_lock_file(int fd) {
    struct flock request;
    memset(&request, 0, sizeof request);
    request.l_type = F_WRLCK;
    request.l_whence = SEEK_SET;
    return fcntl(fd, F_SETLK, &request);  // classic record lock where there is no OFD lock
}

int csc_lock_held(int fd) {
    struct flock request;
    memset(&request, 0, sizeof request);
    request.l_type = F_WRLCK;
    request.l_whence = SEEK_SET;
    if (fcntl(fd, F_GETLK, &request) == -1) return -1;
    return request.l_type != F_UNLCK;
}
#endif

int csc_spawn_close_from(posix_spawn_file_actions_t *actions, int from) {
#if defined(__GLIBC__) && (__GLIBC__ > 2 || (__GLIBC__ == 2 && __GLIBC_MINOR__ >= 34))
    return posix_spawn_file_actions_addclosefrom_np(actions, from);
#else
    (void)actions;
    (void)from;
    return ENOSYS;
#endif
}

int csc_spawn_chdir(posix_spawn_file_actions_t *actions, const char *path) {
#if defined(__GLIBC__) && (__GLIBC__ > 2 || (__GLIBC__ == 2 && __GLIBC_MINOR__ >= 29))
    return posix_spawn_file_actions_addchdir_np(actions, path);
#else
    (void)actions;
    (void)path;
    return ENOSYS;
#endif
}

void csc_name_thread(const char *name) {
    char shortName[16];
    strncpy(shortName, name, 15);
    shortName[15] = 0;
    pthread_setname_np(pthread_self(), shortName);
}

#ifdef __linux__
#include <unistd.h>
int csc_thread_id(void) { return (int)gettid(); }
#else
int csc_thread_id(void) { return 0; }
#endif

int csc_signal_is_default(int signal) {
    struct sigaction current;
    if (sigaction(signal, NULL, &current) != 0) return -1;
    if (current.sa_flags & SA_SIGINFO) return 0;
    return current.sa_handler == SIG_DFL ? 1 : 0;
}

#if defined(__GLIBC__)
#include <malloc.h>
int csc_release_free_heap(void) { return malloc_trim(0); }
#else
int csc_release_free_heap(void) { return 0; }
#endif

#include <sys/statvfs.h>
int csc_free_bytes(const char *path, unsigned long long *free) {
    struct statvfs st;
    if (statvfs(path, &st) != 0) return -1;
    *free = (unsigned long long)st.f_bavail * (unsigned long long)st.f_frsize;
    return 0;
}
