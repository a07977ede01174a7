#include "delay/config.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include "core/error.h"

using namespace kdelay;

namespace {

CommonOptions ebpf_only()
{
    CommonOptions o;
    o.print_ebpf = true;  // no root needed
    o.pid = getpid();
    return o;
}

}  // namespace

TEST(DelayConfig, RingBufferPagesRoundUpToAPowerOfTwo)
{
    for (auto [given, want] : std::vector<std::pair<uint32_t, uint32_t>>{{1, 1}, {3, 4}, {1024, 1024}, {1025, 2048}}) {
        DelayOptions d;
        d.buffer_page_count = given;
        EXPECT_EQ(make_delay_config(ebpf_only(), d).features.ringbuf_pages, want) << given;
    }
}

TEST(DelayConfig, TriggersAreParsedBeforeAnythingElse)
{
    CommonOptions o;  // not even a valid target: the trigger is refused first
    o.pid = 999999999;
    DelayOptions d;
    d.has_start_trigger = true;
    d.start_trigger = "t:a:b) { x(); } int y(void *c";
    try {
        make_delay_config(o, d);
        FAIL() << "accepted";
    } catch (const Error& e) {
        EXPECT_EQ(e.code(), Exit::config);
    }
    DelayOptions ok;
    ok.has_stop_trigger = true;
    ok.stop_trigger = "ur:c:free";
    auto cfg = make_delay_config(ebpf_only(), ok);
    ASSERT_TRUE(cfg.stop_trigger);
    EXPECT_EQ(cfg.stop_trigger->kind, Trigger::Kind::uretprobe);
    EXPECT_FALSE(cfg.start_trigger);
}
