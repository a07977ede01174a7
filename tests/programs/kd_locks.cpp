// A known kernel lock wait, for kdelay's lock contention section.
//
//   kd_locks HOLD_MS [ROUNDS]
//
// Each round: thread kd_holder write()s to a memfd from a page that is
// registered with userfaultfd and not yet present. shmem's write path holds
// the file's inode lock (an rwsem, taken for writing) while it faults the
// page in, and the fault waits for thread kd_uffd, which supplies the page
// HOLD_MS after the fault arrives. Right after the fault arrives, thread
// kd_waiter write()s to the same memfd, and waits for the inode lock for
// about HOLD_MS: one rwsem write contention of ~HOLD_MS per round, by
// kd_waiter only. kd_waiter frames each of its writes with polls that do
// not wait, so that --stall sees it as one interval (a poll's return to
// the next poll call). Prints "ready", then starts the rounds on SIGUSR1
// (so they fall inside kdelay's window), and prints "done" after the last.
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fcntl.h>
#include <linux/userfaultfd.h>
#include <poll.h>
#include <pthread.h>
#include <semaphore.h>
#include <signal.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

namespace {

long hold_ms;
int uffd, memfd;
char* region;
long page;
sem_t fault_arrived, waiter_done;

void die(const char* what)
{
    fprintf(stderr, "kd_locks: %s: %s\n", what, strerror(errno));
    exit(71);
}

void* uffd_thread(void*)
{
    prctl(PR_SET_NAME, "kd_uffd");
    char* source = static_cast<char*>(mmap(nullptr, page, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0));
    memset(source, 'x', page);
    for (;;) {
        pollfd p{uffd, POLLIN, 0};
        if (poll(&p, 1, -1) < 0)
            die("poll");
        uffd_msg msg;
        if (read(uffd, &msg, sizeof(msg)) != sizeof(msg))
            die("read userfaultfd");
        if (msg.event != UFFD_EVENT_PAGEFAULT)
            continue;
        sem_post(&fault_arrived);
        timespec ts{hold_ms / 1000, (hold_ms % 1000) * 1000000L};
        nanosleep(&ts, nullptr);
        uffdio_copy copy{};
        copy.dst = msg.arg.pagefault.address & ~(page - 1);
        copy.src = reinterpret_cast<unsigned long>(source);
        copy.len = page;
        if (ioctl(uffd, UFFDIO_COPY, &copy) < 0)
            die("UFFDIO_COPY");
    }
    return nullptr;
}

void* waiter_thread(void*)
{
    prctl(PR_SET_NAME, "kd_waiter");
    static char buf[64];
    for (;;) {
        sem_wait(&fault_arrived);
        poll(nullptr, 0, 0);
        if (pwrite(memfd, buf, sizeof(buf), 0) < 0)
            die("waiter write");
        poll(nullptr, 0, 0);
        sem_post(&waiter_done);
    }
    return nullptr;
}

}  // namespace

int main(int argc, char** argv)
{
    if (argc < 2) {
        fprintf(stderr, "usage: kd_locks HOLD_MS [ROUNDS]\n");
        return 64;
    }
    hold_ms = atol(argv[1]);
    const long rounds = argc > 2 ? atol(argv[2]) : 1;
    page = sysconf(_SC_PAGESIZE);
    prctl(PR_SET_NAME, "kd_holder");
    memfd = static_cast<int>(syscall(SYS_memfd_create, "kd_locks", 0));
    if (memfd < 0)
        die("memfd_create");
    uffd = static_cast<int>(syscall(SYS_userfaultfd, O_CLOEXEC));
    if (uffd < 0)
        die("userfaultfd");
    uffdio_api api{UFFD_API, 0, 0};
    if (ioctl(uffd, UFFDIO_API, &api) < 0)
        die("UFFDIO_API");
    region = static_cast<char*>(mmap(nullptr, page * rounds, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0));
    uffdio_register reg{};
    reg.range.start = reinterpret_cast<unsigned long>(region);
    reg.range.len = page * rounds;
    reg.mode = UFFDIO_REGISTER_MODE_MISSING;
    if (ioctl(uffd, UFFDIO_REGISTER, &reg) < 0)
        die("UFFDIO_REGISTER");
    sigset_t usr1;
    sigemptyset(&usr1);
    sigaddset(&usr1, SIGUSR1);
    pthread_sigmask(SIG_BLOCK, &usr1, nullptr);  // before the threads, which inherit it
    sem_init(&fault_arrived, 0, 0);
    sem_init(&waiter_done, 0, 0);
    pthread_t t;
    pthread_create(&t, nullptr, uffd_thread, nullptr);
    pthread_create(&t, nullptr, waiter_thread, nullptr);
    printf("ready\n");
    fflush(stdout);
    int sig;
    sigwait(&usr1, &sig);
    for (long i = 0; i < rounds; ++i) {
        // Each round faults on a page of its own: a present page would not wait.
        if (pwrite(memfd, region + i * page, 64, 0) < 0)
            die("holder write");
        sem_wait(&waiter_done);
    }
    printf("done\n");
    fflush(stdout);
    return 0;
}
