#include "loader/template.h"

#include <gtest/gtest.h>

#include "core/error.h"

using namespace kdelay;

TEST(Template, FillsNumbersIdentifiersSectionsAndPartials)
{
    TemplateValues v;
    v.number("pid", 1234);
    v.identifier("type", "__u32");
    v.section("extra", true);
    v.section("never", false);
    v.partial("abi", "struct s { int a; };");
    const std::string out = render_template(
        "t", "{{> abi}}\n#define PID {{pid}}\n{{type}} x;{{#extra}} a && b < c{{/extra}}{{#never}}no{{/never}}",
        v);
    EXPECT_EQ(out, "struct s { int a; };\n#define PID 1234\n__u32 x; a && b < c");
}

TEST(Template, UnknownPlaceholderIsAnError)
{
    TemplateValues v;
    v.number("pid", 1);
    EXPECT_THROW(render_template("t", "{{pid}} {{tgid}}", v), Error);
    EXPECT_THROW(render_template("t", "{{#flag}}x{{/flag}}", v), Error);
    EXPECT_THROW(render_template("t", "{{> missing}}", v), Error);
    try {
        render_template("t.bpf.c", "{{tgid}}", v);
    } catch (const Error& e) {
        EXPECT_EQ(e.code(), Exit::software);
        EXPECT_NE(std::string(e.what()).find("tgid"), std::string::npos);
    }
}

// A program split into parts: the parts' sections are filled from the same
// values, a part's own unknown placeholder is an error, and a part included
// on a line of its own adds no blank line.
TEST(Template, PartsShareValuesAndAreCheckedToo)
{
    TemplateValues v;
    v.section("on", true);
    v.number("n", 7);
    v.partial("part", "{{#on}}\nint a = {{n}};\n{{/on}}\n");
    EXPECT_EQ(render_template("t", "head\n{{> part}}\ntail\n", v), "head\nint a = 7;\ntail\n");
    v.partial("bad", "int b = {{missing}};\n");
    EXPECT_THROW(render_template("t", "{{> part}}\n", v), Error);
}

TEST(Template, OnlyCIdentifiersPass)
{
    for (const char* ok : {"a", "_x", "task_struct", "__state", "A9"})
        EXPECT_TRUE(is_c_identifier(ok)) << ok;
    for (const char* bad : {"", "9a", "a b", "a;", "x) { return 0; } int y(", "a-b", "a\nb", "é"})
        EXPECT_FALSE(is_c_identifier(bad)) << bad;

    TemplateValues v;
    EXPECT_THROW(v.identifier("fn", "f(){}"), Error);
    try {
        v.identifier("fn", "x); bpf_override_return(ctx, 0");
    } catch (const Error& e) {
        EXPECT_EQ(e.code(), Exit::config);
    }
}

TEST(Template, BrokenTemplateIsAnError)
{
    TemplateValues v;
    v.section("a", true);
    EXPECT_THROW(render_template("t", "{{#a}}unclosed", v), Error);
}

// Mustache keeps one value per name: a partial named like a section would
// turn the section on whatever it was set to.
TEST(Template, ANameIsOneKindOnly)
{
    TemplateValues v;
    v.section("part", false);
    v.partial("part", "");
    try {
        render_template("t", "{{#part}}x{{/part}}", v);
        FAIL() << "no error";
    } catch (const Error& e) {
        EXPECT_EQ(e.code(), Exit::software);
        EXPECT_NE(std::string(e.what()).find("'part' is both a section and a value"), std::string::npos);
    }
}
