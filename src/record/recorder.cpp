#include "record/recorder.h"

#include <linux/types.h>

#include <bcc/BPF.h>
#include <bcc/bcc_usdt.h>
#include <cerrno>
#include <cstring>
#include <fmt/format.h>
#include <fstream>
#include <nlohmann/json.hpp>
#include <iostream>
#include <sstream>

#include "loader/embedded.h"
#include "loader/ring_buffer.h"
#include "loader/session.h"
#include "loader/program_source.h"
#include "loader/template.h"
#include "core/error.h"
#include "record_abi.h"
#include "report/format.h"
#include "report/writer.h"
#include "sys/event_wait.h"
#include "sys/process.h"
#include "trigger/resolve.h"

namespace kdelay {
namespace {

std::string function_name(size_t index) { return "kd_record_" + std::to_string(index); }

// A string of the target's, fit to stand between single quotes on a line
// of its own.
std::string quotable(std::string_view text)
{
    std::string shown = printable(text);
    for (size_t at = shown.find('\''); at != std::string::npos; at = shown.find('\'', at))
        shown.replace(at, 1, "\\x27");
    return shown;
}

}  // namespace

void complete_record_config(const CommonOptions& common, RecordConfig& cfg)
{
    cfg.set = load_record_sets(cfg.probes);
    cfg.json = common.format == CommonOptions::Format::json;
    cfg.bpf = make_bpf_config(common, true, "record takes one process: USDT probes attach to one process at a time");  // with --ebpf, -p gives the argument types
    if (!cfg.bpf.pid() && !cfg.bpf.print_ebpf)
        throw Error(Exit::usage, "record needs -p PID");
}

std::string render_record_program(const RecordSet& set)
{
    std::string functions;
    for (size_t i = 0; i < set.probes.size(); ++i) {
        std::string reads;
        for (const auto& a : set.probes[i].args) {
            TemplateValues r;
            r.identifier("ctype", a.ctype);
            r.number("arg", a.pos + 1);  // bpf_usdt_readarg counts from 1
            r.number("slot", a.slot);
            const char* name = a.is_string ? "record/read_str.c.mustache" : "record/read_int.c.mustache";
            reads += render_template(name, embedded_file(name), r);
        }
        TemplateValues p;
        p.identifier("provider", set.provider);
        p.identifier("probe", set.probes[i].name);
        p.number("index", i);
        p.partial("reads", reads);
        functions += render_template("record/probe.c.mustache", embedded_file("record/probe.c.mustache"), p);
    }
    ConfigHeader c(record_config_names());
    c.number("RINGBUF_PAGES", 256);
    return assemble_program({"record.bpf.c"}, c) + functions;
}

std::string format_record(const RecordProbe& probe, const void* data)
{
    const auto* r = static_cast<const kd_record*>(data);
    std::string line = probe.name + ":";
    const char* sep = " ";
    for (const auto& a : probe.args) {
        if (a.is_string)
            line += fmt::format("{}{}='{}'", sep, a.name,
                                quotable({r->strs[a.slot], strnlen(r->strs[a.slot], KD_RECORD_STR_LEN)}));
        else
            line += fmt::format("{}{}=0x{:x}", sep, a.name, r->ints[a.slot]);
        sep = ", ";
    }
    return line;
}

void resolve_arg_types(RecordSet& set, pid_t pid)
{
    void* ctx = bcc_usdt_new_frompid(pid, nullptr);
    if (!ctx)
        return;
    for (auto& probe : set.probes)
        for (auto& arg : probe.args) {
            const char* ctype = bcc_usdt_get_fully_specified_probe_argctype(
                ctx, set.provider.c_str(), probe.name.c_str(), static_cast<int>(arg.pos));
            if (ctype && is_c_identifier(ctype))
                arg.ctype = ctype;
        }
    bcc_usdt_close(ctx);
}

std::string format_record_json(const RecordProbe& probe, const void* data)
{
    const auto* r = static_cast<const kd_record*>(data);
    nlohmann::json args = nlohmann::json::object();
    for (const auto& a : probe.args) {
        if (a.is_string)
            args[a.name] = std::string(r->strs[a.slot], strnlen(r->strs[a.slot], KD_RECORD_STR_LEN));
        else
            args[a.name] = r->ints[a.slot];
    }
    return nlohmann::json{{"type", "record"}, {"probe", probe.name}, {"args", args}}.dump(
        -1, ' ', false, nlohmann::json::error_handler_t::replace);
}

int run_record(const RecordConfig& config, ReportWriter& log)
{
    RecordConfig cfg = config;
    if (cfg.bpf.pid())
        resolve_arg_types(cfg.set, cfg.bpf.pid());
    const std::string source = render_record_program(cfg.set);
    if (cfg.bpf.print_ebpf) {
        std::cout << source;
        return 0;
    }
    std::ofstream file;
    if (!cfg.output.empty()) {
        file.open(cfg.output, std::ios::trunc);
        if (!file)
            throw Error(Exit::cantcreat, "cannot write " + cfg.output + ": " + strerror(errno));
    }
    std::ostream& out = cfg.output.empty() ? std::cout : file;

    // Each probe must exist in the target (its executable or a library);
    // available holds their files open until they are attached.
    const auto available = list_usdt_probes(cfg.bpf.pid(), "");
    const std::string where = "process " + std::to_string(cfg.bpf.pid());
    std::vector<UsdtAttach> usdts;
    for (size_t i = 0; i < cfg.set.probes.size(); ++i) {
        const auto& name = cfg.set.probes[i].name;
        const UsdtProbe& probe = usdt_probe(available, cfg.set.provider, name, where);
        usdts.push_back({probe.binary, cfg.set.provider, name, function_name(i), probe.shown});
    }

    BpfSession session(source, cfg.bpf.debug, usdts);
    session.attach_usdts(cfg.bpf.pid());
    // Signals are taken over only now: until here Ctrl-C ends kdelay at once,
    // even inside a compile or a blocking open, and nothing is left behind.
    EventWait wait;
    wait.watch_process(cfg.bpf.pid());
    RingBufferReader reader(session.maps().fd("records"), [&](const void* data, size_t size) {
        const auto* r = static_cast<const kd_record*>(data);
        if (size < sizeof(kd_record) || r->probe >= cfg.set.probes.size())
            return;
        const RecordProbe& probe = cfg.set.probes[r->probe];
        out << (cfg.json ? format_record_json(probe, data) : format_record(probe, data)) << '\n';
    });
    log.note("recording " + std::to_string(usdts.size()) + " USDT probes of process " + std::to_string(cfg.bpf.pid()) +
             "; Ctrl-C to stop");

    using Clock = EventWait::Clock;
    const std::string target = cfg.output.empty() ? "stdout" : cfg.output;
    auto check_output = [&] {
        if (!out.flush())
            throw Error(Exit::ioerr, "cannot write " + target + ": " + strerror(errno));
    };
    for (;;) {
        reader.poll_until(Clock::now() + std::chrono::milliseconds(100));
        check_output();
        const auto wake = wait.wait_until(Clock::now());
        if (wake != EventWait::Wake::timeout)
            break;
    }
    reader.drain();
    check_output();
    if (const uint64_t n = session.maps().per_cpu_sum("records_lost", 0); n > 0)
        log.warning(with_commas(n) + " records were lost (ring buffer full); the recording above is incomplete.");
    return 0;
}

}  // namespace kdelay
