// The kinds of load a busy host puts beside the traced process, for the load
// harness (tests/load/run.sh). Runs until killed.
//
//   kd_load cpu DIR        "kd-load-cpu0", "kd-load-cpu1": one busy thread
//                          pinned to each of the first two CPUs
//   kd_load forkexec DIR   two "kd-load-fork" loops of fork, exec /bin/true, wait
//   kd_load fsync DIR      two "kd-load-fsync" threads writing 64 KiB and
//                          fsync()ing it, over and over, in files under DIR
//   kd_load udp DIR        "kd-load-udp" floods "kd-load-sink" with 512-byte
//                          datagrams over loopback (softirq load)
//   kd_load all DIR        all of them at once
//
// Every thread's name starts with "kd-load", so READY blame can be checked
// against them. Prints "loaded" once every part runs.
#include <arpa/inet.h>
#include <cstdio>
#include <cstring>
#include <fcntl.h>
#include <netinet/in.h>
#include <pthread.h>
#include <string>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>
#include <vector>

#include "loopback_udp.h"
#include "pin_cpu.h"

namespace {

std::string g_dir;

void name(const char* n) { prctl(PR_SET_NAME, n); }

void* hog(void* cpu)
{
    const long c = reinterpret_cast<long>(cpu);
    pin_to_cpu(static_cast<int>(c));
    name(c == 0 ? "kd-load-cpu0" : "kd-load-cpu1");
    for (;;)
        asm volatile("" ::: "memory");
    return nullptr;
}

void* forker(void*)
{
    name("kd-load-fork");
    for (;;) {
        const pid_t child = fork();
        if (child == 0) {
            execl("/bin/true", "true", static_cast<char*>(nullptr));
            _exit(127);
        }
        if (child > 0)
            waitpid(child, nullptr, 0);
    }
    return nullptr;
}

void* syncer(void* index)
{
    name("kd-load-fsync");
    const std::string path = g_dir + "/kd-load-fsync." + std::to_string(reinterpret_cast<long>(index));
    const int fd = open(path.c_str(), O_CREAT | O_WRONLY | O_TRUNC, 0600);
    if (fd < 0) {
        perror(path.c_str());
        return nullptr;
    }
    std::vector<char> block(64 * 1024, 'x');
    for (long i = 0;; ++i) {
        if (pwrite(fd, block.data(), block.size(), (i % 64) * static_cast<off_t>(block.size())) < 0)
            perror("pwrite");
        fsync(fd);
    }
    return nullptr;
}

int g_sink_port = 0;

void* sink(void* fd)
{
    name("kd-load-sink");
    char buf[2048];
    for (;;)
        recv(static_cast<int>(reinterpret_cast<long>(fd)), buf, sizeof(buf), 0);
    return nullptr;
}

void* flooder(void*)
{
    name("kd-load-udp");
    const int fd = socket(AF_INET, SOCK_DGRAM, 0);
    sockaddr_in to{};
    to.sin_family = AF_INET;
    to.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    to.sin_port = htons(static_cast<uint16_t>(g_sink_port));
    char buf[512] = {};
    for (;;)
        sendto(fd, buf, sizeof(buf), 0, reinterpret_cast<sockaddr*>(&to), sizeof(to));
    return nullptr;
}

void start(void* (*fn)(void*), long arg = 0)
{
    pthread_t t;
    pthread_create(&t, nullptr, fn, reinterpret_cast<void*>(arg));
}

bool start_udp()
{
    sockaddr_in at;
    const int fd = bind_loopback_udp(&at);
    if (fd < 0) {
        perror("udp sink");
        return false;
    }
    g_sink_port = ntohs(at.sin_port);
    start(sink, fd);
    start(flooder);
    return true;
}

}  // namespace

int main(int argc, char** argv)
{
    const std::string kinds[] = {"cpu", "forkexec", "fsync", "udp", "all"};
    const std::string kind = argc == 3 ? argv[1] : "";
    bool known = false;
    for (const std::string& k : kinds)
        known |= k == kind;
    if (!known) {
        fprintf(stderr, "usage: kd_load cpu|forkexec|fsync|udp|all DIR\n");
        return 64;
    }
    g_dir = argv[2];
    const bool all = kind == "all";
    if (all || kind == "cpu") {
        start(hog, 0);
        start(hog, 1);
    }
    if (all || kind == "forkexec") {
        start(forker);
        start(forker);
    }
    if (all || kind == "fsync") {
        start(syncer, 0);
        start(syncer, 1);
    }
    if ((all || kind == "udp") && !start_udp())
        return 71;
    printf("loaded\n");
    fflush(stdout);
    for (;;)
        pause();
}
