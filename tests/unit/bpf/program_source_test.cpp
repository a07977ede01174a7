#include "bpf/program_source.h"

#include <gtest/gtest.h>
#include <map>

#include "core/error.h"

using namespace kdelay;

namespace {

SourceFiles files(std::map<std::string, std::string> texts)
{
    return [texts](const std::string& name) {
        auto it = texts.find(name);
        if (it == texts.end())
            throw Error(Exit::software, name + " was not embedded");
        return it->second;
    };
}

}  // namespace

TEST(ConfigHeader, DefinesCheckedNamesOnce)
{
    ConfigHeader c;
    c.number("MAX_THREADS", 256);
    c.flag("WITH_BUDGET", true);
    c.flag("WITH_LOCKS", false);
    c.type("TASK_STATE_TYPE", "__u32");
    EXPECT_EQ(c.text(), "#define MAX_THREADS 256\n#define WITH_BUDGET 1\n#define WITH_LOCKS 0\n"
                        "#define TASK_STATE_TYPE __u32\n");
    EXPECT_THROW(c.number("MAX_THREADS", 1), Error) << "defined twice";
    EXPECT_THROW(c.number("BAD NAME", 1), Error);
    EXPECT_THROW(c.type("T", "int; system(\"x\")"), Error);
    try {
        c.type("T", "__u32 */");
    } catch (const Error& e) {
        EXPECT_EQ(e.code(), Exit::config);
    }
}

// Includes are inlined where they stand, each file once, the generated
// header first whoever includes it.
TEST(ProgramSource, InlinesEachIncludeOnceWithTheConfigFirst)
{
    ConfigHeader c;
    c.flag("WITH_X", true);
    const auto f = files({{"main.bpf.c", "#include \"kd_config.h\"\n#include \"a.h\"\nint main_part;\n"},
                          {"a.h", "  #  include \"b.h\"\nint a;\n"},
                          {"b.h", "int b;\n"},
                          {"second.bpf.c", "#include \"a.h\"\n#include \"b.h\"\nint second;\n"}});
    EXPECT_EQ(assemble_program({"main.bpf.c", "second.bpf.c"}, c, f),
              "/* ---- kd_config.h ---- */\n#define WITH_X 1\n"
              "/* ---- main.bpf.c ---- */\n"
              "/* ---- a.h ---- */\n/* ---- b.h ---- */\nint b;\nint a;\nint main_part;\n"
              "/* ---- second.bpf.c ---- */\nint second;\n");
}

TEST(ProgramSource, RefusesSystemHeadersAndMissingFiles)
{
    ConfigHeader c;
    EXPECT_THROW(assemble_program({"p.bpf.c"}, c, files({{"p.bpf.c", "#include <linux/sched.h>\n"}})), Error);
    EXPECT_THROW(assemble_program({"p.bpf.c"}, c, files({{"p.bpf.c", "#include NAME\n"}})), Error);
    EXPECT_THROW(assemble_program({"p.bpf.c"}, c, files({{"p.bpf.c", "#include \"gone.h\"\n"}})), Error);
    EXPECT_NO_THROW(assemble_program({"p.bpf.c"}, c, files({{"p.bpf.c", "#if X\n#define included 1\n#endif\n"}})));
}

// Every file of the kernel side assembles on its own from what was
// embedded: its includes name files that exist.
TEST(ProgramSource, EveryEmbeddedPartAssembles)
{
    ConfigHeader c;
    for (const char* part : {"delay.bpf.c", "biosnoop.bpf.c", "record.bpf.c", "delay/sections/locks.bpf.c",
                             "delay/sections/reclaim.bpf.c"})
        EXPECT_NO_THROW(assemble_program({part}, c)) << part;
}
