// Shared pieces of the end-to-end tests: paths, skip rule, helpers.
#pragma once

#include <gtest/gtest.h>
#include <string>
#include <unistd.h>
#include <vector>

#include "process.h"
#include "report_parser.h"

namespace kdtest {

inline const std::string kKdelay = KDELAY_BIN;
inline const std::string kWorkload = KD_WORKLOAD_BIN;

// Why this machine cannot run real eBPF, or "" if it can.
inline std::string why_no_bpf()
{
    if (geteuid() != 0)
        return "e2e tests load eBPF and need root";
    if (access("/sys/kernel/btf/vmlinux", R_OK) != 0)
        return "no kernel BTF at /sys/kernel/btf/vmlinux";
    return "";
}

#define KD_REQUIRE_BPF()                                   \
    do {                                                   \
        const std::string why = ::kdtest::why_no_bpf();    \
        if (!why.empty())                                  \
            GTEST_SKIP() << why;                           \
    } while (0)

// The tid a kd_workload printed as "tid NAME TID".
inline uint32_t workload_tid(const std::string& out, const std::string& name)
{
    const std::string key = "tid " + name + " ";
    const auto at = out.find(key);
    return at == std::string::npos ? 0 : static_cast<uint32_t>(std::stoul(out.substr(at + key.size())));
}

// Waits until `kdelay record` says it is recording (its probes are attached).
inline bool wait_until_recording(Process& rec)
{
    using namespace std::chrono_literals;
    for (int i = 0; i < 200 && rec.err().find("kdelay: recording") == std::string::npos; ++i)
        rec.wait_for_output("never", 100ms);
    return rec.err().find("kdelay: recording") != std::string::npos;
}

}  // namespace kdtest
