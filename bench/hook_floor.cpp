// hook_floor raw|tracepoint|sched STORM ARGS...: attaches empty eBPF
// programs, then runs STORM. The floor any tracer on those hooks pays on
// this machine, to read kdelay's cost against.
//   raw         sys_enter and sys_exit raw tracepoints;
//   tracepoint  the same as classic tracepoints;
//   sched       every raw tracepoint of kdelay's scheduler and syscall
//               paths: sys_enter, sys_exit, sched_switch, sched_wakeup,
//               sched_wakeup_new.
// hook_floor --print raw|sched writes the program instead, with kdelay's
// capture map, for bench/program_loader (bench/ablate.sh loads it against
// a storm already running).
//   HOOK_DECLS, HOOK_BODY: declarations (maps) and a body for every raw
//   tracepoint program instead of an empty one, to price one primitive (a
//   clock read, a hash lookup) with kernel.bpf_stats_enabled. When it runs
//   STORM, the body may name STORM's process as TARGET_TGID: STORM is
//   forked first and waits until the programs are attached.
#include <bcc/BPF.h>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>
#include <vector>

#include "loader/embedded.h"
#include "sys/kernel_env.h"

int main(int argc, char** argv)
{
    const bool print = argc == 3 && std::string(argv[1]) == "--print";
    if (argc < 3) {
        fprintf(stderr, "usage: hook_floor raw|tracepoint|sched STORM [ARGS...]\n"
                        "       hook_floor --print raw|sched\n");
        return 64;
    }
    const std::string mode = argv[print ? 2 : 1];
    const bool raw = mode != "tracepoint";
    const char* decls = getenv("HOOK_DECLS");
    const char* body = getenv("HOOK_BODY");
    std::vector<std::string> hooks = {"sys_enter", "sys_exit"};
    if (mode == "sched")
        hooks.insert(hooks.end(), {"sched_switch", "sched_wakeup", "sched_wakeup_new"});
    // The storm waits on a pipe until the programs are attached, so that its
    // pid can be compiled into them.
    int go[2] = {-1, -1};
    pid_t pid = -1;
    if (!print) {
        if (pipe(go) != 0) {
            perror("pipe");
            return 71;
        }
        pid = fork();
        if (pid == 0) {
            close(go[1]);
            char byte;
            if (read(go[0], &byte, 1) != 1)
                _exit(0);  // the programs did not attach
            close(go[0]);
            execv(argv[2], argv + 2);
            _exit(127);
        }
        close(go[0]);
    }
    std::string src;
    if (print)
        src = kdelay::embedded_file("delay_abi.h") + "\nBPF_ARRAY(capture, struct kd_capture, 1);\n";
    else
        src = "#define TARGET_TGID " + std::to_string(pid) + "\n";
    src += std::string(decls ? decls : "") + "\n";
    for (const std::string& hook : hooks)
        src += raw ? "RAW_TRACEPOINT_PROBE(" + hook + ") { " + (body ? body : "return 0;") + " }\n"
                   : "TRACEPOINT_PROBE(raw_syscalls, " + hook + ") { return 0; }\n";
    if (print) {
        fputs(src.c_str(), stdout);
        return 0;
    }
    const kdelay::KernelHeaders headers(kdelay::embedded_folder("bcc_tree"));  // the tree kdelay itself compiles against
    ebpf::BPF bpf(0, nullptr, false);
    auto st = bpf.init(src);
    if (!st.ok()) {
        fprintf(stderr, "init: %s\n", st.msg().c_str());
        return 70;
    }
    for (const std::string& hook : hooks) {
        st = raw ? bpf.attach_raw_tracepoint(hook, "raw_tracepoint__" + hook)
                 : bpf.attach_tracepoint("raw_syscalls:" + hook, "tracepoint__raw_syscalls__" + hook);
        if (!st.ok()) {
            fprintf(stderr, "attach: %s\n", st.msg().c_str());
            return 71;
        }
    }
    fflush(stdout);
    if (write(go[1], "g", 1) != 1) {
        perror("write");
        return 71;
    }
    close(go[1]);
    int status = 0;
    waitpid(pid, &status, 0);
    return WIFEXITED(status) ? WEXITSTATUS(status) : 1;
}
