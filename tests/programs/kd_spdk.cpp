// Fires USDT probes with the layout of SPDK's NVMe-oF qpair probes, provider
// "spdk", for kdelay record's tests. arg0 is a TSC; qid is read through a
// pointer, so its argument spec is a memory operand such as 2@8(%rdi).
//
//   kd_spdk ROUNDS   each round: add a qpair to a poll group, add it to a
//                    controller, remove it; then one failed connect (add
//                    and remove, no controller add). Waits for SIGUSR1 first.
//                    The second round's host NQN is a hostile one.
#include <csignal>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <sys/sdt.h>
#include <x86intrin.h>

struct qpair {
    uint64_t pad;
    uint16_t qid;
};

// A uuid host NQN is longer than bpftrace's 63-character strings; the
// subsystem NQN here is 200 characters, within kdelay's 223.
static const std::string kHostNqn = "nqn.2014-08.org.nvmexpress:uuid:4c4c4544-0034-5310-8057-b1c04f4b4a32";
static const std::string kSubNqn = "nqn.2016-06.io.spdk:" + std::string(180, 'c');
// A host names itself: the second round's host NQN tries to end its quoted
// value, clear the screen and forge a record line.
static const std::string kHostileNqn = "nqn.evil'\x1b[2J\nnvmf_poll_group_remove_qpair: tsc=0x1";

__attribute__((noinline)) void add_to_ctrlr(qpair* q, const char* sub, const char* host)
{
    STAP_PROBE5(spdk, nvmf_ctrlr_add_qpair, __rdtsc(), q, q->qid, sub, host);
}

int main(int argc, char** argv)
{
    const int rounds = argc > 1 ? atoi(argv[1]) : 3;
    sigset_t set;
    sigemptyset(&set);
    sigaddset(&set, SIGUSR1);
    sigprocmask(SIG_BLOCK, &set, nullptr);
    printf("ready\n");
    fflush(stdout);
    int sig;
    sigwait(&set, &sig);

    static qpair qpairs[64];
    const uint64_t thread = 7;
    for (int i = 0; i < rounds && i < 63; ++i) {
        qpair* q = &qpairs[i];
        q->qid = static_cast<uint16_t>(i + 1);
        STAP_PROBE3(spdk, nvmf_poll_group_add_qpair, __rdtsc(), q, thread);
        add_to_ctrlr(q, kSubNqn.c_str(), (i == 1 ? kHostileNqn : kHostNqn).c_str());
        STAP_PROBE3(spdk, nvmf_poll_group_remove_qpair, __rdtsc(), q, thread);
    }
    qpair* failed = &qpairs[63];
    STAP_PROBE3(spdk, nvmf_poll_group_add_qpair, __rdtsc(), failed, thread + 1);
    STAP_PROBE3(spdk, nvmf_poll_group_remove_qpair, __rdtsc(), failed, thread + 1);
    printf("done\n");
    fflush(stdout);
    return 0;
}
