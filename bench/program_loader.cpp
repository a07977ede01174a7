// program_loader PROGRAM.c SECONDS: loads a delay program as `kdelay --ebpf`
// printed it (and as bench/ablate.sh edited it), attaches each of its
// RAW_TRACEPOINT_PROBEs and BTF_TRACEPOINT_PROBEs, starts capturing, and holds it for SECONDS. Prices
// one change to the kernel side without rebuilding kdelay.
#include <bcc/BPF.h>
#include <cstdio>
#include <cstdlib>
#include <ctime>
#include <fstream>
#include <regex>
#include <sstream>
#include <string>
#include <unistd.h>

#include <linux/types.h>

#include "bpf/btf_tracepoint.h"
#include "delay_abi.h"

int main(int argc, char** argv)
{
    if (argc != 3) {
        fprintf(stderr, "usage: program_loader PROGRAM.c SECONDS\n");
        return 64;
    }
    std::ifstream in(argv[1]);
    if (!in) {
        fprintf(stderr, "program_loader: cannot read %s\n", argv[1]);
        return 66;
    }
    std::stringstream text;
    text << in.rdbuf();
    const std::string src = text.str();
    ebpf::BPF bpf(0, nullptr, false);
    auto st = bpf.init(src);
    if (!st.ok()) {
        fprintf(stderr, "init: %s\n", st.msg().c_str());
        return 70;
    }
    const std::regex probe(R"(RAW_TRACEPOINT_PROBE\((\w+)\))");
    for (std::sregex_iterator it(src.begin(), src.end(), probe), end; it != end; ++it) {
        const std::string tp = (*it)[1];
        st = bpf.attach_raw_tracepoint(tp, "raw_tracepoint__" + tp);
        if (!st.ok()) {
            fprintf(stderr, "attach %s: %s\n", tp.c_str(), st.msg().c_str());
            return 71;
        }
    }
    const std::regex typed(R"(\nBTF_TRACEPOINT_PROBE\((\w+)\))");
    for (std::sregex_iterator it(src.begin(), src.end(), typed), end; it != end; ++it) {
        int link = -1;  // held until exit
        st = kdelay::attach_btf_tracepoint(bpf, kdelay::kBtfTracepointPrefix + (*it)[1].str(), &link);
        if (!st.ok()) {
            fprintf(stderr, "attach %s: %s\n", (*it)[1].str().c_str(), st.msg().c_str());
            return 71;
        }
    }
    timespec now{};
    clock_gettime(CLOCK_MONOTONIC, &now);
    kd_capture cap{};
    cap.state = KD_CAPTURING;
    cap.start_ns = static_cast<uint64_t>(now.tv_sec) * 1000000000ull + now.tv_nsec;
    if (!bpf.get_array_table<kd_capture>("capture").update_value(0, cap).ok()) {
        fprintf(stderr, "program_loader: cannot start capturing\n");
        return 70;
    }
    sleep(static_cast<unsigned>(atoi(argv[2])));
    return 0;
}
