// program_loader PROGRAM.c SECONDS: loads a delay program as `kdelay --ebpf`
// printed it (and as bench/ablate.sh edited it), attaches each of its
// RAW_TRACEPOINT_PROBEs and BTF_TRACEPOINT_PROBEs that kd_config.h turns on
// (it needs cpp) through kdelay's own
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

#include "loader/probe_set.h"
#include "loader/session.h"
#include "core/error.h"
#include "delay_abi.h"

namespace {

// The program as the compiler sees it, with kd_config.h's #if decided
// (cpp; BCC's macros stay as written), or "" if cpp failed.
std::string preprocessed(const char* path)
{
    FILE* cpp = popen((std::string("cpp -P -w -undef -nostdinc ") + path).c_str(), "r");
    std::string out;
    char buf[65536];
    for (size_t n; cpp && (n = fread(buf, 1, sizeof buf, cpp)) > 0;)
        out.append(buf, n);
    return cpp && pclose(cpp) == 0 ? out : "";
}

// One probe per handler the compiled program has, of the handler's own
// kind (BTF_TRACEPOINT_PROBE expanded to its tp_btf__ function).
std::vector<kdelay::ProbeSpec> handlers(const std::string& src)
{
    using kdelay::ProbeSpec;
    std::vector<ProbeSpec> probes;
    const std::regex handler(R"(\n(RAW_TRACEPOINT_PROBE\((\w+)\)|int tp_btf__(\w+)\())");
    for (std::sregex_iterator it(src.begin(), src.end(), handler), end; it != end; ++it) {
        if ((*it)[2].matched) {
            const std::string tp = (*it)[2];
            probes.push_back({ProbeSpec::Type::raw_tracepoint, tp, "raw_tracepoint__" + tp, "", ""});
        } else {
            const std::string tp = (*it)[3];
            probes.push_back({ProbeSpec::Type::btf_tracepoint, tp, kdelay::kBtfTracepointPrefix + tp, "", ""});
        }
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
        const std::string compiled = preprocessed(argv[1]);
        if (compiled.empty()) {
            fprintf(stderr, "program_loader: cpp cannot read %s\n", argv[1]);
            return 66;
        }
        session.attach(handlers("\n" + compiled));
        timespec now{};
        clock_gettime(CLOCK_MONOTONIC, &now);
        kd_capture cap{};
        cap.state = KD_CAPTURING;
        cap.start_ns = static_cast<uint64_t>(now.tv_sec) * 1000000000ull + now.tv_nsec;
        session.maps().set_element("capture", 0, cap);
        puts("attached");  // bench/ablate.sh counts the storm's turns from here only
        fflush(stdout);
        sleep(static_cast<unsigned>(atoi(argv[2])));
    } catch (const kdelay::Error& e) {
        fprintf(stderr, "program_loader: %s\n", e.what());
        return static_cast<int>(e.code());
    }
    return 0;
}
