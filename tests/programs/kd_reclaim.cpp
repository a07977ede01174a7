// A known memory cgroup reclaim, for kdelay's reclaim section.
//
//   kd_reclaim LIMIT_MB FILE_MB
//
// Writes a FILE_MB file under /var/tmp and drops it from the page cache,
// then moves itself into a new memory cgroup limited to LIMIT_MB (cgroup v1's
// memory controller where it is mounted, else cgroup v2, mounted privately
// when nothing is). Prints "ready". On SIGUSR1, thread kd_reader reads the
// file once: every page it brings into the page cache is charged to the
// cgroup, so past the limit each charge first reclaims the cgroup's clean
// pages, synchronously, in kd_reader's read(). The reading is framed by
// polls that do not wait, one interval for --stall. Then it prints how many
// times a charge hit the limit (v1 memory.failcnt, v2 memory.events "max"),
// which the kernel counts once before each such reclaim:
//   limit_hits kd_reader N
// and "done". The cgroup and the file are removed at exit.
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fcntl.h>
#include <fstream>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <sstream>
#include <string>
#include <sys/mount.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <unistd.h>
#include <vector>

namespace {

std::string file_path, cgroup, mount_point;
bool v1 = false;
long file_mb;

[[noreturn]] void die(const std::string& what)
{
    fprintf(stderr, "kd_reclaim: %s: %s\n", what.c_str(), strerror(errno));
    exit(71);
}

bool exists(const std::string& path) { return access(path.c_str(), F_OK) == 0; }

std::string read_text(const std::string& path)
{
    std::ifstream in(path);
    std::stringstream s;
    s << in.rdbuf();
    return s.str();
}

void write_text(const std::string& path, const std::string& text)
{
    const int fd = open(path.c_str(), O_WRONLY);
    if (fd < 0 || write(fd, text.data(), text.size()) != static_cast<ssize_t>(text.size()))
        die("write " + path);
    close(fd);
}

bool has_memory_controller(const std::string& root)
{
    std::istringstream controllers(read_text(root + "/cgroup.controllers"));
    for (std::string c; controllers >> c;)
        if (c == "memory")
            return true;
    return false;
}

// A new cgroup limited to limit_mb, in v1's memory hierarchy or in v2.
void make_cgroup(long limit_mb)
{
    const std::string name = "/kd_reclaim." + std::to_string(getpid());
    const std::string limit = std::to_string(limit_mb << 20);
    if (exists("/sys/fs/cgroup/memory/memory.limit_in_bytes")) {
        v1 = true;
        cgroup = "/sys/fs/cgroup/memory" + name;
    } else {
        std::string root = "/sys/fs/cgroup";
        if (!has_memory_controller(root)) {
            char dir[] = "/run/kd_reclaim.XXXXXX";
            if (!mkdtemp(dir))
                die("mkdtemp");
            mount_point = root = dir;
            if (mount("none", dir, "cgroup2", 0, nullptr) != 0)
                die("mount cgroup2");
            if (!has_memory_controller(root))
                die("no memory controller in cgroup v2");
        }
        write_text(root + "/cgroup.subtree_control", "+memory");
        cgroup = root + name;
    }
    if (mkdir(cgroup.c_str(), 0755) != 0)
        die("mkdir " + cgroup);
    write_text(cgroup + (v1 ? "/memory.limit_in_bytes" : "/memory.max"), limit);
    if (!v1 && exists(cgroup + "/memory.swap.max"))
        write_text(cgroup + "/memory.swap.max", "0");
    write_text(cgroup + "/cgroup.procs", std::to_string(getpid()));
}

uint64_t limit_hits()
{
    if (v1)
        return strtoull(read_text(cgroup + "/memory.failcnt").c_str(), nullptr, 10);
    std::istringstream events(read_text(cgroup + "/memory.events"));
    std::string key;
    uint64_t n = 0;
    while (events >> key >> n)
        if (key == "max")
            return n;
    return 0;
}

void cleanup()
{
    unlink(file_path.c_str());
    if (cgroup.empty())
        return;
    const std::string parent = cgroup.substr(0, cgroup.rfind('/'));
    const int fd = open((parent + "/cgroup.procs").c_str(), O_WRONLY);
    if (fd >= 0) {
        const std::string pid = std::to_string(getpid());
        (void)!write(fd, pid.data(), pid.size());
        close(fd);
    }
    rmdir(cgroup.c_str());
    if (!mount_point.empty()) {
        umount(mount_point.c_str());
        rmdir(mount_point.c_str());
    }
}

void* reader_thread(void*)
{
    prctl(PR_SET_NAME, "kd_reader");
    const uint64_t before = limit_hits();
    const int fd = open(file_path.c_str(), O_RDONLY);
    if (fd < 0)
        die("open " + file_path);
    std::vector<char> buf(1 << 20);
    poll(nullptr, 0, 0);
    for (ssize_t n; (n = read(fd, buf.data(), buf.size())) != 0;)
        if (n < 0)
            die("read");
    poll(nullptr, 0, 0);
    close(fd);
    printf("limit_hits kd_reader %llu\n", static_cast<unsigned long long>(limit_hits() - before));
    return nullptr;
}

}  // namespace

int main(int argc, char** argv)
{
    if (argc != 3) {
        fprintf(stderr, "usage: kd_reclaim LIMIT_MB FILE_MB\n");
        return 64;
    }
    const long limit_mb = atol(argv[1]);
    file_mb = atol(argv[2]);
    if (limit_mb <= 0 || file_mb <= limit_mb) {
        fprintf(stderr, "kd_reclaim: FILE_MB must exceed LIMIT_MB\n");
        return 64;
    }
    file_path = "/var/tmp/kd_reclaim." + std::to_string(getpid());
    atexit(cleanup);
    const int fd = open(file_path.c_str(), O_CREAT | O_TRUNC | O_WRONLY, 0600);
    if (fd < 0)
        die("create " + file_path);
    std::vector<char> chunk(1 << 20, 'r');
    for (long i = 0; i < file_mb; ++i)
        if (write(fd, chunk.data(), chunk.size()) != static_cast<ssize_t>(chunk.size()))
            die("write " + file_path);
    if (fsync(fd) != 0 || posix_fadvise(fd, 0, 0, POSIX_FADV_DONTNEED) != 0)
        die("drop the file's pages");
    close(fd);
    make_cgroup(limit_mb);

    sigset_t usr1;
    sigemptyset(&usr1);
    sigaddset(&usr1, SIGUSR1);
    pthread_sigmask(SIG_BLOCK, &usr1, nullptr);
    printf("ready\n");
    fflush(stdout);
    int sig;
    sigwait(&usr1, &sig);
    pthread_t t;
    pthread_create(&t, nullptr, reader_thread, nullptr);
    pthread_join(t, nullptr);
    printf("done\n");
    fflush(stdout);
    return 0;
}
