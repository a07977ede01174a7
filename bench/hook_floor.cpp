// hook_floor raw|tracepoint|sched STORM ARGS...: attaches empty eBPF
// programs, then runs STORM. hook_floor --print MODE writes the program
// instead (bench/ablate.sh loads it against a storm already running). raw and tracepoint: sys_enter/sys_exit (raw or
// classic tracepoints); sched: every raw tracepoint kdelay's scheduler and
// syscall paths use (sys_enter, sys_exit, sched_switch, sched_wakeup,
// sched_wakeup_new). Gives the floor any tracer on those hooks pays on this
// machine, to read kdelay's cost against.
//   HOOK_DECLS, HOOK_BODY: with raw, declarations (maps) and the body of the
//   two syscall programs instead of an empty one, to price one primitive (a
//   clock read, a hash lookup) with kernel.bpf_stats_enabled.
#include <bcc/BPF.h>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <sys/wait.h>
#include <unistd.h>

int main(int argc, char** argv)
{
    const bool print = argc == 3 && std::string(argv[1]) == "--print";
    if (argc < 3) {
        fprintf(stderr, "usage: hook_floor raw|tracepoint|sched STORM [ARGS...]\n"
                        "       hook_floor --print raw|tracepoint|sched\n");
        return 64;
    }
    const std::string mode = argv[print ? 2 : 1];
    const bool raw = mode != "tracepoint";
    const std::string decls = getenv("HOOK_DECLS") ? getenv("HOOK_DECLS") : "";
    const std::string body = getenv("HOOK_BODY") ? getenv("HOOK_BODY") : "return 0;";
    std::string src = raw ? decls + "\nRAW_TRACEPOINT_PROBE(sys_enter) { " + body + " }\n"
                                    "RAW_TRACEPOINT_PROBE(sys_exit) { " + body + " }\n"
                          : "TRACEPOINT_PROBE(raw_syscalls, sys_enter) { return 0; }\n"
                            "TRACEPOINT_PROBE(raw_syscalls, sys_exit) { return 0; }\n";
    const char* const sched[] = {"sched_switch", "sched_wakeup", "sched_wakeup_new"};
    if (mode == "sched")
        for (const char* tp : sched)
            src += std::string("RAW_TRACEPOINT_PROBE(") + tp + ") { return 0; }\n";
    if (print) {
        fputs(src.c_str(), stdout);
        return 0;
    }
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
    for (const char* tp : sched) {
        if (mode != "sched")
            break;
        st = bpf.attach_raw_tracepoint(tp, std::string("raw_tracepoint__") + tp);
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
