// Which cgroup --unit names (src/sys/cgroup.cpp): only where the system
// manager puts its units. On the main before it, any directory of the
// unit's name matched, a user manager's among them (systemd-run --user
// --unit=ovs-vswitchd makes one, without root).
#include <gtest/gtest.h>

#include "sys/cgroup.h"

namespace kdelay {
namespace {

TEST(UnitCgroup, OnlyAPathOfSlicesLeadsToASystemUnit)
{
    EXPECT_TRUE(system_unit_path("system.slice/ovs-vswitchd.service"));
    EXPECT_TRUE(system_unit_path("system.slice/system-kdelay\\x2dstall.slice/kdelay-stall@kd-svc.service"));
    EXPECT_TRUE(system_unit_path("init.scope"));
    EXPECT_TRUE(system_unit_path("machine.slice"));
    EXPECT_FALSE(system_unit_path("user.slice/user-1000.slice/user@1000.service/app.slice/ovs-vswitchd.service"))
        << "a user manager's unit";
    EXPECT_FALSE(system_unit_path("machine.slice/machine-c1.scope/payload/system.slice/ovs-vswitchd.service"))
        << "a container's unit";
    EXPECT_FALSE(system_unit_path("system.slice/docker.service/ovs-vswitchd.service")) << "inside a delegated unit";
    EXPECT_FALSE(system_unit_path(""));
    EXPECT_FALSE(system_unit_path("/system.slice/ovs-vswitchd.service"));
}

}  // namespace
}  // namespace kdelay
