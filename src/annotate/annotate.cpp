#include "annotate/annotate.h"

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <memory>
#include <sys/stat.h>

#include "annotate/annotator.h"
#include "annotate/pipeline.h"
#include "annotate/probe_records.h"
#include "annotate/trace_reader.h"
#include "annotate/trace_writer.h"
#include "cli/common_options.h"
#include "core/error.h"

namespace kdelay {
namespace {

struct FileCloser {
    void operator()(std::FILE* f) const
    {
        if (f && f != stdin)
            std::fclose(f);
    }
};
using File = std::unique_ptr<std::FILE, FileCloser>;

File open_input(const std::string& path)
{
    if (path.empty() || path == "-")
        return File(stdin);
    File f(std::fopen(path.c_str(), "rb"));
    if (!f)
        throw Error(Exit::noinput, "cannot open " + path + ": " + strerror(errno));
    struct stat st {};
    if (fstat(fileno(f.get()), &st) == 0 && S_ISDIR(st.st_mode))
        throw Error(Exit::noinput, "cannot read " + path + ": it is a directory");
    return f;
}

}  // namespace

void complete_annotate_config(const CommonOptions& common, AnnotateConfig& cfg)
{
    cfg.set = load_record_sets(cfg.probes);
    cfg.json = common.format == CommonOptions::Format::json;
    if (cfg.only_listed_tpoints)
        for (auto& a : cfg.set.annotations)
            a.any_tpoint_with_key = false;
    if (!cfg.records.empty() && cfg.set.annotations.empty())
        throw Error(Exit::config, "the probe sets define no \"annotate\" section, so -b would annotate nothing");
}

int run_annotate(const AnnotateConfig& cfg, std::FILE* out)
{
    // Records first: a bad record file fails before any output.
    std::vector<LifetimeIndex> objects;
    if (!cfg.records.empty()) {
        for (const auto& spec : cfg.set.annotations)
            objects.emplace_back(spec, cfg.set);
        const File f = open_input(cfg.records);
        for_each_probe_record(f.get(), cfg.records, cfg.set, [&](const ProbeRecord& r) {
            for (auto& o : objects)
                o.add(r);
        });
        for (auto& o : objects)
            o.finish();
    }
    EntryAnnotator annotator(std::move(objects));
    const File in = open_input(cfg.input);
    const std::string name = cfg.input.empty() || cfg.input == "-" ? "stdin" : cfg.input;

    std::unique_ptr<TraceWriter> writer;
    if (cfg.json)
        writer = std::make_unique<TraceJsonWriter>(out);
    else
        writer = std::make_unique<TraceTextWriter>(out);
    PipelinedSink sink(annotator, *writer);
    try {
        read_spdk_trace(in.get(), name, sink);
    } catch (...) {
        // What was read before the fault is printed first. A writer error
        // came from an earlier entry, so it wins.
        const auto fault = std::current_exception();
        try {
            sink.finish();
        } catch (...) {
            writer->flush();
            throw;
        }
        writer->flush();
        std::rethrow_exception(fault);
    }
    sink.finish();
    writer->flush();
    return 0;
}

}  // namespace kdelay
