// program_loader PROGRAM.c SECONDS: loads a delay program as `kdelay --ebpf`
// printed it (and as bench/ablate.sh edited it), attaches each of its
// RAW_TRACEPOINT_PROBEs and BTF_TRACEPOINT_PROBEs through kdelay's own
// BpfSession, starts capturing, and holds it for SECONDS. Prices one change
// to the kernel side without rebuilding kdelay. LOADER_DEBUG=N passes N as
// kdelay's -D (BCC's debug flags; any N shows BCC's output and the verifier's).
#include <bcc/BPF.h>
#include <cstdio>
#include <cstdlib>
#include <ctime>
#include <fstream>
#include <regex>
#include <sstream>
#include <string>
#include <unistd.h>
#include <vector>

#include <linux/types.h>

#include "bpf/probe_set.h"
#include "bpf/session.h"
#include "core/error.h"
#include "delay_abi.h"

namespace {

// One probe per handler the program defines, of the handler's own kind.
std::vector<kdelay::ProbeSpec> handlers(const std::string& src)
{
    using kdelay::ProbeSpec;
    std::vector<ProbeSpec> probes;
    const std::regex handler(R"(\n(RAW|BTF)_TRACEPOINT_PROBE\((\w+)\))");
    for (std::sregex_iterator it(src.begin(), src.end(), handler), end; it != end; ++it) {
        const std::string tp = (*it)[2];
        if ((*it)[1] == "RAW")
            probes.push_back({ProbeSpec::Type::raw_tracepoint, tp, "raw_tracepoint__" + tp, "", ""});
        else
            probes.push_back({ProbeSpec::Type::btf_tracepoint, tp, kdelay::kBtfTracepointPrefix + tp, "", ""});
    }
    return probes;
}

}  // namespace

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
    const std::string src = "\n" + text.str();
    try {
        const char* debug = getenv("LOADER_DEBUG");
        kdelay::BpfSession session(src, debug ? static_cast<unsigned>(atoi(debug)) : 0);
        session.attach(handlers(src));
        timespec now{};
        clock_gettime(CLOCK_MONOTONIC, &now);
        kd_capture cap{};
        cap.state = KD_CAPTURING;
        cap.start_ns = static_cast<uint64_t>(now.tv_sec) * 1000000000ull + now.tv_nsec;
        if (!session.bpf().get_array_table<kd_capture>("capture").update_value(0, cap).ok()) {
            fprintf(stderr, "program_loader: cannot start capturing\n");
            return 70;
        }
        sleep(static_cast<unsigned>(atoi(argv[2])));
    } catch (const kdelay::Error& e) {
        fprintf(stderr, "program_loader: %s\n", e.what());
        return static_cast<int>(e.code());
    }
    return 0;
}
