#include "annotate/annotate_options.h"

namespace kdelay {

void add_annotate_command(CLI::App& app, CommonOptions& common, AnnotateConfig& values, Subcommand& c)
{
    begin_subcommand(app, c, CommonOptions::Mode::annotate, "annotate",
                     "Print an SPDK trace (the JSON of spdk_trace -j) exactly as SPDK's trace.py\n"
                     "prints it, with each qpair argument inside a recorded qpair lifetime shown as\n"
                     "qpair(ptr=..., thread=N, qid=N, subnqn=..., hostnqn=...). Streams: any input\n"
                     "size in flat memory. Needs no root.",
                     "annotate does not start a command");
    c.app->add_option("-i,--input", values.input, "spdk_trace -j output (default or '-': stdin)")
        ->type_name("FILE");
    c.app->add_option("-b,--records,--bpftrace", values.records,
                      "Probe records from kdelay record (or trace.py's bpftrace script)")
        ->type_name("FILE");
    c.app->add_option("--probes", values.probes,
                      "Probe-set file(s) the records follow (default: the SPDK nvmf set)")
        ->type_name("FILE");
    c.app->add_flag("--only-listed-tpoints", values.only_listed_tpoints,
                    "Annotate only the tracepoints the probe set lists (trace.py's RDMA_REQ_* and\n"
                    "TCP_REQ_*), as trace.py does; by default any tracepoint with a qpair argument");
    add_format_option(*c.app, common, "text (default: trace.py's layout) or json (JSON Lines)");
    c.app->footer("Exit status: 0 ok, 64 bad option, 65 malformed trace or record file (the message\n"
                  "gives the byte offset or line), 66 unreadable file, 74 read or write error.");
}

}  // namespace kdelay
