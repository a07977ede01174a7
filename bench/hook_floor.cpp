// hook_floor raw|tracepoint STORM ARGS...: attaches empty eBPF programs to
// sys_enter/sys_exit (raw or classic tracepoints), then runs STORM. Gives the
// floor any syscall tracer pays on this machine, to read kdelay's cost against.
#include <bcc/BPF.h>
#include <cstdio>
#include <string>
#include <sys/wait.h>
#include <unistd.h>

int main(int argc, char** argv)
{
    if (argc < 3) {
        fprintf(stderr, "usage: hook_floor raw|tracepoint STORM [ARGS...]\n");
        return 64;
    }
    const bool raw = std::string(argv[1]) == "raw";
    const std::string src = raw ? "RAW_TRACEPOINT_PROBE(sys_enter) { return 0; }\n"
                                  "RAW_TRACEPOINT_PROBE(sys_exit) { return 0; }\n"
                                : "TRACEPOINT_PROBE(raw_syscalls, sys_enter) { return 0; }\n"
                                  "TRACEPOINT_PROBE(raw_syscalls, sys_exit) { return 0; }\n";
    ebpf::BPF bpf(0, nullptr, false);
    auto st = bpf.init(src);
    if (!st.ok()) {
        fprintf(stderr, "init: %s\n", st.msg().c_str());
        return 70;
    }
    for (const char* dir : {"enter", "exit"}) {
        st = raw ? bpf.attach_raw_tracepoint(std::string("sys_") + dir,
                                             std::string("raw_tracepoint__sys_") + dir)
                 : bpf.attach_tracepoint(std::string("raw_syscalls:sys_") + dir,
                                         std::string("tracepoint__raw_syscalls__sys_") + dir);
        if (!st.ok()) {
            fprintf(stderr, "attach: %s\n", st.msg().c_str());
            return 71;
        }
    }
    fflush(stdout);
    pid_t pid = fork();
    if (pid == 0) {
        execv(argv[2], argv + 2);
        _exit(127);
    }
    int status = 0;
    waitpid(pid, &status, 0);
    return WIFEXITED(status) ? WEXITSTATUS(status) : 1;
}
