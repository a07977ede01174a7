// What the running kernel's BPF can do that BTF does not tell, found by
// loading a few instructions.
#pragma once

namespace kdelay {

// Whether programs may compare-and-swap (BPF atomics, Linux 5.12): without
// it a program that uses one fails to load ("BPF_STX uses reserved fields").
bool bpf_has_compare_and_swap();

}  // namespace kdelay
