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

}  // namespace
}  // namespace kdelay
