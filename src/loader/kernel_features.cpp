#include "loader/kernel_features.h"

#include <bpf/bpf.h>
#include <linux/bpf.h>
#include <unistd.h>

namespace kdelay {
namespace {

constexpr bpf_insn insn(__u8 code, __u8 dst, __u8 src, __s16 off, __s32 imm)
{
    return bpf_insn{code, dst, src, off, imm};
}

}  // namespace

bool bpf_has_compare_and_swap()
{
    static const bool has = [] {
        // A stack slot compared with r0 and swapped for r2.
        const bpf_insn prog[] = {
            insn(BPF_ALU64 | BPF_MOV | BPF_K, BPF_REG_1, 0, 0, 0),
            insn(BPF_STX | BPF_MEM | BPF_DW, BPF_REG_10, BPF_REG_1, -8, 0),
            insn(BPF_ALU64 | BPF_MOV | BPF_K, BPF_REG_0, 0, 0, 0),
            insn(BPF_ALU64 | BPF_MOV | BPF_K, BPF_REG_2, 0, 0, 1),
            insn(BPF_STX | BPF_ATOMIC | BPF_DW, BPF_REG_10, BPF_REG_2, -8, BPF_CMPXCHG),
            insn(BPF_ALU64 | BPF_MOV | BPF_K, BPF_REG_0, 0, 0, 0),
            insn(BPF_JMP | BPF_EXIT, 0, 0, 0, 0),
        };
        const int fd = bpf_prog_load(BPF_PROG_TYPE_SOCKET_FILTER, "kd_cas_probe", "GPL", prog,
                                     sizeof(prog) / sizeof(prog[0]), nullptr);
        if (fd < 0)
            return false;
        close(fd);
        return true;
    }();
    return has;
}

}  // namespace kdelay
