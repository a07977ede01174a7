// Probe-set files: the annotate section must name probes and arguments the
// set has, with integer keys and TSCs.
#include <gtest/gtest.h>

#include "core/error.h"
#include "record/record_set.h"

using namespace kdelay;

namespace {

const std::string kProbes = R"("provider":"spdk","usdt":[
  {"probe":"open","args":[{"name":"tsc","pos":0,"type":"int"},{"name":"obj","pos":1,"type":"int"},{"name":"who","pos":2,"type":"str"}]},
  {"probe":"close","args":[{"name":"tsc","pos":0,"type":"int"},{"name":"obj","pos":1,"type":"int"}]}])";

std::string error_of(const std::string& annotate)
{
    try {
        parse_record_set("set.json", "{" + kProbes + ",\"annotate\":[" + annotate + "]}");
    } catch (const Error& e) {
        EXPECT_EQ(e.code(), Exit::dataerr);
        return e.what();
    }
    return "(no error)";
}

}  // namespace

TEST(RecordSet, TheEmbeddedSpdkSetAnnotatesQpairs)
{
    const RecordSet set = load_record_sets({});
    ASSERT_EQ(set.annotations.size(), 1u);
    const ObjectAnnotation& a = set.annotations[0];
    EXPECT_EQ(a.key, "qpair");
    EXPECT_EQ(a.begin, "nvmf_poll_group_add_qpair");
    EXPECT_EQ(a.end, "nvmf_poll_group_remove_qpair");
    EXPECT_EQ(a.detail, "nvmf_ctrlr_add_qpair");
    EXPECT_EQ(a.detail_properties, (std::vector<std::string>{"qid", "subnqn", "hostnqn"}));
    EXPECT_EQ(a.tpoints.size(), 25u) << "trace.py's list";
    EXPECT_TRUE(a.any_tpoint_with_key);
}

TEST(RecordSet, AnAnnotationOfOtherObjects)
{
    const RecordSet set = parse_record_set(
        "set.json", "{" + kProbes +
                        R"(,"annotate":[{"key":"obj","begin":"open","end":"close","begin_properties":["who"],)"
                        R"("any_tpoint_with_key":false}]})");
    ASSERT_EQ(set.annotations.size(), 1u);
    EXPECT_EQ(set.annotations[0].begin_properties, std::vector<std::string>{"who"});
    EXPECT_FALSE(set.annotations[0].any_tpoint_with_key);
    EXPECT_TRUE(set.annotations[0].detail.empty());
}

TEST(RecordSet, BadAnnotationsAreRefused)
{
    EXPECT_EQ(error_of(R"({"key":"obj","begin":"open","end":"gone"})"),
              "set.json: annotation of 'obj' names probe 'gone', which the set lacks");
    EXPECT_EQ(error_of(R"({"key":"who","begin":"open","end":"close"})"),
              "set.json: annotation of 'who': open.who must be an int");
    EXPECT_EQ(error_of(R"({"key":"obj","tsc":"who","begin":"open","end":"close"})"),
              "set.json: annotation of 'obj': open.who must be an int");
    EXPECT_EQ(error_of(R"({"key":"obj","begin":"close","end":"open","begin_properties":["who"]})"),
              "set.json: annotation of 'obj': probe close has no argument 'who'");
    EXPECT_EQ(error_of(R"({"key":"obj","begin":"open","end":"open"})"),
              "set.json: annotation of 'obj': begin and end are the same probe");
    EXPECT_EQ(error_of(R"({"key":"obj","begin":"open","end":"close","begin_properties":["nope"]})"),
              "set.json: annotation of 'obj': probe open has no argument 'nope'");
    EXPECT_NE(error_of(R"({"begin":"open","end":"close"})").find("set.json: "), std::string::npos)
        << "a missing key is a JSON error, named";
}

// An argument's position is a whole number below the limit: a float past
// unsigned's range (found by fuzz_probe_set) or a negative one is refused,
// not converted.
TEST(RecordSet, AnArgumentPositionIsAWholeNumberBelowTheLimit)
{
    const auto error_of_pos = [](const std::string& pos) -> std::string {
        try {
            parse_record_set("set.json",
                             R"({"provider":"p","usdt":[{"probe":"a","args":[{"name":"x","pos":)" + pos +
                                 R"(,"type":"int"}]}]})");
        } catch (const Error& e) {
            EXPECT_EQ(e.code(), Exit::dataerr);
            return e.what();
        }
        return "(no error)";
    };
    EXPECT_EQ(error_of_pos("3"), "(no error)");
    EXPECT_EQ(error_of_pos("1e59"), "set.json: argument position 1e+59 of a is not a whole number below 12");
    EXPECT_EQ(error_of_pos("-1"), "set.json: argument position -1 of a is not a whole number below 12");
    EXPECT_EQ(error_of_pos("12"), "set.json: argument position 12 of a is not a whole number below 12");
    EXPECT_EQ(error_of_pos("2.5"), "set.json: argument position 2.5 of a is not a whole number below 12");
}
