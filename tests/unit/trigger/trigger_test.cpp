#include "trigger/trigger.h"

#include <gtest/gtest.h>

#include "core/error.h"
#include "report/format.h"
#include "hostile_triggers.h"

using namespace kdelay;

TEST(Trigger, ParsesEveryKindAndAlias)
{
    auto u = parse_trigger("u:udpif_revalidator:start_dump");
    EXPECT_EQ(u.kind, Trigger::Kind::usdt);
    EXPECT_EQ(u.provider, "udpif_revalidator");
    EXPECT_EQ(u.probe, "start_dump");
    EXPECT_EQ(parse_trigger("usdt:a:b").describe(), "usdt:a:b");

    auto t = parse_trigger("t:openvswitch:ovs_dp_upcall");
    EXPECT_EQ(t.kind, Trigger::Kind::tracepoint);
    EXPECT_EQ(t.system, "openvswitch");
    EXPECT_EQ(t.event, "ovs_dp_upcall");
    EXPECT_EQ(parse_trigger("trace:sched:sched_switch").describe(), "trace:sched:sched_switch");

    EXPECT_EQ(parse_trigger("k:ovs_dp_process_packet").kind, Trigger::Kind::kprobe);
    EXPECT_EQ(parse_trigger("kprobe:foo.isra.0").function, "foo.isra.0");
    EXPECT_EQ(parse_trigger("kr:f").kind, Trigger::Kind::kretprobe);
    EXPECT_EQ(parse_trigger("kretprobe:f").kind, Trigger::Kind::kretprobe);

    EXPECT_EQ(parse_trigger("up:bridge_run").kind, Trigger::Kind::uprobe);
    EXPECT_EQ(parse_trigger("uprobe:bridge_run").function, "bridge_run");
    // The reference documents upr but only accepts ur: both work here.
    for (const char* ret : {"ur:bridge_run", "upr:bridge_run", "uretprobe:bridge_run"})
        EXPECT_EQ(parse_trigger(ret).kind, Trigger::Kind::uretprobe) << ret;
}

TEST(Trigger, UprobesMayNameALibraryOrAPath)
{
    auto lib = parse_trigger("up:c:malloc");
    EXPECT_EQ(lib.object, "c");
    EXPECT_EQ(lib.function, "malloc");
    EXPECT_EQ(parse_trigger("ur:libc.so.6:free").object, "libc.so.6");
    auto path = parse_trigger("up:/usr/lib/x86_64-linux-gnu/libssl.so.3:SSL_read");
    EXPECT_EQ(path.object, "/usr/lib/x86_64-linux-gnu/libssl.so.3");
    EXPECT_EQ(path.function, "SSL_read");
    EXPECT_EQ(path.describe(), "uprobe:/usr/lib/x86_64-linux-gnu/libssl.so.3:SSL_read");
    EXPECT_EQ(parse_trigger("up:_ZN3foo3barEv").function, "_ZN3foo3barEv");
}

TEST(Trigger, HostileAndMalformedStringsAreConfigErrors)
{
    ASSERT_GE(kd_hostile_triggers().size(), 30u);
    for (const auto& text : kd_hostile_triggers()) {
        try {
            parse_trigger(text);
            ADD_FAILURE() << "accepted: " << text;
        } catch (const Error& e) {
            EXPECT_EQ(e.code(), Exit::config) << text;
            // Escaped once, where kdelay prints its errors (app/app.cpp):
            // one line, and a backslash of the trigger's as \x5c, never an
            // escape escaped again.
            const std::string msg = printable(e.what());
            EXPECT_EQ(msg.find('\n'), std::string::npos) << "one line: " << msg;
            EXPECT_EQ(msg.rfind("invalid trigger", 0), 0u) << msg;
            EXPECT_EQ(msg.find("\\x5cx"), std::string::npos) << "escaped twice: " << msg;
        }
    }
}
