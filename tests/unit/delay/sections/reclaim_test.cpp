#include <gtest/gtest.h>

#include "delay/section.h"

using namespace kdelay;

// The kinds of reclaim, by the contract's names (KD_RECLAIM_*).
TEST(ReclaimSection, NamesTheKindsOfReclaim)
{
    const ThreadSection* reclaim = nullptr;
    for (const RegisteredSection& s : registered_sections())
        if (std::string(s.def->on.name) == "reclaim")
            reclaim = s.def;
    ASSERT_TRUE(reclaim);
    EXPECT_EQ(reclaim->row_name(0), "direct");
    EXPECT_EQ(reclaim->row_name(1), "memcg");
    EXPECT_EQ(reclaim->row_name(2), "memcg-soft");
    EXPECT_EQ(reclaim->row_name(7), "kind 7");
}
