#include "loader/program_source.h"

#include <gtest/gtest.h>
#include <map>
#include <regex>

#include "loader/embedded.h"
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
    ConfigHeader c({{"MAX_THREADS", ConfigKind::NUMBER},
                    {"WITH_BUDGET", ConfigKind::FLAG},
                    {"WITH_LOCKS", ConfigKind::FLAG},
                    {"TASK_STATE_TYPE", ConfigKind::TYPE},
                    {"T", ConfigKind::TYPE}});
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

// Only a declared name, of its kind; every declared name before the
// program is assembled.
TEST(ConfigHeader, DefinesTheDeclaredNamesAllAndNoOther)
{
    ConfigHeader c({{"COUNT", ConfigKind::NUMBER}, {"ON", ConfigKind::FLAG}, {"ITEM", ConfigKind::INDEXED}});
    EXPECT_THROW(c.number("COUNTS", 1), Error) << "not declared";
    EXPECT_THROW(c.number("ON", 1), Error) << "a flag written as a number";
    EXPECT_THROW(c.flag("COUNT", true), Error) << "a number written as a flag";
    EXPECT_THROW(c.number("ITEM", 1), Error) << "an indexed name takes an index";
    EXPECT_THROW(c.number("ITEMS_0", 1), Error) << "another name's index";
    c.number("COUNT", 2);
    EXPECT_THROW(c.indexed("ITEM", {1, 2, 3}, 2), Error) << "more values than places";
    c.indexed("ITEM", {7, 9}, 3);
    try {
        c.check_complete();
        ADD_FAILURE() << "ON is not defined";
    } catch (const Error& e) {
        EXPECT_EQ(e.code(), Exit::software);
        EXPECT_NE(std::string(e.what()).find("ON"), std::string::npos) << e.what();
    }
    c.flag("ON", false);
    EXPECT_NO_THROW(c.check_complete());
    EXPECT_EQ(c.text(), "#define COUNT 2\n#define ITEM_0 7\n#define ITEM_1 9\n#define ITEM_2 4294967295\n#define ON 0\n");
}

// An offsets list writes each of its names with its member's offset.
TEST(ConfigHeader, WritesAnOffsetsListFromItsLayout)
{
    BioLayout l{};
    l.bio_bdev = {8, 8};
    l.bio_sector = {32, 8};
    l.bdev_disk = {1000, 8};
    ConfigHeader c(KD_OFFSET_NAMES(KD_BIO_OFFSETS));
    c.offsets(bio_offsets(), l);
    EXPECT_NO_THROW(c.check_complete());
    EXPECT_EQ(c.text(), "#define BIO_BDEV_OFF 8\n#define BIO_SECTOR_OFF 32\n#define BDEV_DISK_OFF 1000\n");
}

// Includes are inlined where they stand, each file once, the generated
// header first whoever includes it.
TEST(ProgramSource, InlinesEachIncludeOnceWithTheConfigFirst)
{
    ConfigHeader c({{"WITH_X", ConfigKind::FLAG}});
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
    ConfigHeader c({});
    EXPECT_THROW(assemble_program({"p.bpf.c"}, c, files({{"p.bpf.c", "#include <linux/sched.h>\n"}})), Error);
    EXPECT_THROW(assemble_program({"p.bpf.c"}, c, files({{"p.bpf.c", "#include NAME\n"}})), Error);
    EXPECT_THROW(assemble_program({"p.bpf.c"}, c, files({{"p.bpf.c", "#include \"gone.h\"\n"}})), Error);
    EXPECT_NO_THROW(assemble_program({"p.bpf.c"}, c, files({{"p.bpf.c", "#if X\n#define included 1\n#endif\n"}})));
}

// Every file of the kernel side assembles on its own from what was
// embedded: its includes name files that exist.
TEST(ProgramSource, EveryEmbeddedPartAssembles)
{
    const ConfigHeader c({});
    for (const char* part : {"delay.bpf.c", "biosnoop.bpf.c", "record.bpf.c", "delay/sections/locks.bpf.c",
                             "delay/sections/reclaim.bpf.c"})
        EXPECT_NO_THROW(assemble_program({part}, c)) << part;
}

// Each list of bpf/kd_config_names.h is required by a part of the kernel
// side, so a name it declares and kd_config.h lacks fails the compile.
TEST(ConfigNames, EveryListIsRequiredByAPart)
{
    const std::string& names = embedded_file("kd_config_names.h");
    const std::regex list(R"(#define (KD_\w+_(CONFIG|OFFSETS))\(X\))");
    std::string required;
    for (const auto& [file, text] : embedded_files())
        if (file != "kd_config_names.h")
            required += text;
    int lists = 0;
    for (auto it = std::sregex_iterator(names.begin(), names.end(), list); it != std::sregex_iterator(); ++it) {
        ++lists;
        const std::string require = std::string("KD_REQUIRE_") + (*it)[2].str() + "(" + (*it)[1].str() + ")";
        EXPECT_NE(required.find(require), std::string::npos) << require;
    }
    EXPECT_GE(lists, 12);
}
