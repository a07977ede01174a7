#include "report/prometheus_text.h"

#include <fstream>
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include "core/error.h"

namespace kdelay {
namespace {

TEST(PrometheusText, FamiliesHaveHelpTypeAndEscapedLabels)
{
    MetricFamily f{"kdelay_stalls_total", "Stalls.", "counter", {}};
    f.samples.push_back(MetricSample{"", {{"thread", "a\"b\\c\nd"}}, 3});
    f.samples.push_back(MetricSample{"", {{"thread", std::string("\xff\x1b[2J", 5)}}, 1});
    f.samples.push_back(MetricSample{"", {}, 0.25});
    EXPECT_EQ(prometheus_text({f}),
              "# HELP kdelay_stalls_total Stalls.\n"
              "# TYPE kdelay_stalls_total counter\n"
              "kdelay_stalls_total{thread=\"a\\\"b\\\\x5cc\\\\x0ad\"} 3\n"
              "kdelay_stalls_total{thread=\"\\\\xff\\\\x1b[2J\"} 1\n"
              "kdelay_stalls_total 0.25\n");
}

TEST(PrometheusText, AHistogramsBucketsAreCumulative)
{
    MetricFamily f{"h", "H.", "histogram", {}};
    add_histogram(f, {{"process", "p"}}, {0.5, 1}, {2, 3}, 4, 9.5);
    EXPECT_EQ(prometheus_text({f}),
              "# HELP h H.\n# TYPE h histogram\n"
              "h_bucket{process=\"p\",le=\"0.5\"} 2\n"
              "h_bucket{process=\"p\",le=\"1\"} 5\n"
              "h_bucket{process=\"p\",le=\"+Inf\"} 9\n"
              "h_sum{process=\"p\"} 9.5\n"
              "h_count{process=\"p\"} 9\n");
}

TEST(PrometheusText, AFileIsReplacedWhole)
{
    char dir[] = "/tmp/kdelay-prom-XXXXXX";
    ASSERT_NE(mkdtemp(dir), nullptr);
    const std::string path = std::string(dir) + "/kdelay.prom";
    replace_file(path, "first\n");
    replace_file(path, "second\n");
    std::ifstream in(path);
    EXPECT_EQ(std::string((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>()), "second\n");
    EXPECT_NE(access((std::string(dir) + "/.kdelay.prom.tmp").c_str(), F_OK), 0) << "no temporary file left";
    // A link planted where the temporary file goes is not followed.
    ASSERT_EQ(symlink("/tmp/kdelay-prom-target", (std::string(dir) + "/.kdelay.prom.tmp").c_str()), 0);
    EXPECT_THROW(replace_file(path, "third\n"), Error);
    EXPECT_NE(access("/tmp/kdelay-prom-target", F_OK), 0);
    unlink((std::string(dir) + "/.kdelay.prom.tmp").c_str());
    unlink(path.c_str());
    rmdir(dir);
    EXPECT_THROW(replace_file("/nonexistent/kdelay.prom", "x"), Error);
}

}  // namespace
}  // namespace kdelay
