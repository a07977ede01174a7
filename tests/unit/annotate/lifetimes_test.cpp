// trace.py's lifetime rules, one at a time.
#include <gtest/gtest.h>

#include <fmt/format.h>

#include "annotate/lifetimes.h"

using namespace kdelay;

namespace {

struct Fixture {
    RecordSet set = load_record_sets({});
    std::vector<ProbeRecord> records;
    LifetimeIndex index(const std::string& text)
    {
        records = parse_probe_records(text, "r.txt", set);
        return LifetimeIndex(set.annotations.at(0), set, records);
    }
};

std::string add(uint64_t tsc, uint64_t q, uint64_t thread = 1)
{
    return fmt::format("nvmf_poll_group_add_qpair: tsc=0x{:x}, qpair=0x{:x}, thread=0x{:x}\n", tsc, q, thread);
}
std::string remove(uint64_t tsc, uint64_t q)
{
    return fmt::format("nvmf_poll_group_remove_qpair: tsc=0x{:x}, qpair=0x{:x}, thread=0x1\n", tsc, q);
}
std::string ctrlr(uint64_t tsc, uint64_t q, uint64_t qid)
{
    return fmt::format("nvmf_ctrlr_add_qpair: tsc=0x{:x}, qpair=0x{:x}, qid=0x{:x}, subnqn='s', hostnqn='h'\n",
                       tsc, q, qid);
}
std::string text_of(const ObjectProperties* p) { return p ? p->text : "(none)"; }

}  // namespace

TEST(Lifetimes, BothEndsAreInclusiveAndAPointerIsReused)
{
    Fixture f;
    const auto idx = f.index(add(10, 1) + ctrlr(11, 1, 4) + remove(20, 1) + add(20, 1, 2) + ctrlr(21, 1, 5));
    EXPECT_EQ(idx.size(), 2u);
    EXPECT_EQ(idx.find(1, 9), nullptr) << "before the add";
    EXPECT_EQ(text_of(idx.find(1, 10)), "qpair(ptr=0x1, thread=1, qid=4, subnqn=s, hostnqn=h)");
    EXPECT_EQ(text_of(idx.find(1, 20)), "qpair(ptr=0x1, thread=1, qid=4, subnqn=s, hostnqn=h)")
        << "at the remove TSC the first lifetime still holds, and the first wins";
    EXPECT_EQ(text_of(idx.find(1, 21)), "qpair(ptr=0x1, thread=2, qid=5, subnqn=s, hostnqn=h)");
    EXPECT_EQ(text_of(idx.find(1, UINT64_MAX)), "qpair(ptr=0x1, thread=2, qid=5, subnqn=s, hostnqn=h)")
        << "no remove: to the end of time";
    EXPECT_EQ(idx.find(2, 10), nullptr) << "another pointer";
}

TEST(Lifetimes, FailedConnectAndRemoveOnly)
{
    Fixture f;
    const auto idx = f.index(add(10, 1, 3) + remove(12, 1) + remove(30, 2));
    EXPECT_EQ(text_of(idx.find(1, 11)), "qpair(ptr=0x1, thread=3)");
    EXPECT_EQ(idx.find(1, 13), nullptr) << "after its remove";
    EXPECT_EQ(idx.find(2, 20), nullptr) << "a pointer with only a remove is ignored";
}

TEST(Lifetimes, RecordsAreSortedByTscStably)
{
    Fixture f;
    // Arrival order differs from TSC order; the detail lies inside the lifetime by TSC.
    const auto idx = f.index(remove(30, 1) + ctrlr(15, 1, 9) + add(10, 1));
    EXPECT_EQ(text_of(idx.find(1, 20)), "qpair(ptr=0x1, thread=1, qid=9, subnqn=s, hostnqn=h)");
}

TEST(Lifetimes, OverlappingAddsShareTheRemoveAndTheFirstWins)
{
    Fixture f;
    const auto idx = f.index(add(10, 1, 1) + add(18, 1, 2) + ctrlr(19, 1, 7) + remove(30, 1));
    EXPECT_EQ(idx.size(), 2u);
    // The first lifetime holds [10, 30] and its last detail is the ctrlr add at 19.
    EXPECT_EQ(text_of(idx.find(1, 18)), "qpair(ptr=0x1, thread=1, qid=7, subnqn=s, hostnqn=h)");
    EXPECT_EQ(text_of(idx.find(1, 30)), "qpair(ptr=0x1, thread=1, qid=7, subnqn=s, hostnqn=h)");
}

TEST(Lifetimes, TheLastDetailInsideTheLifetimeWins)
{
    Fixture f;
    const auto idx = f.index(add(10, 1) + ctrlr(11, 1, 1) + ctrlr(12, 1, 2) + remove(20, 1) + ctrlr(21, 1, 3));
    EXPECT_EQ(text_of(idx.find(1, 15)), "qpair(ptr=0x1, thread=1, qid=2, subnqn=s, hostnqn=h)");
}

TEST(Lifetimes, ManyLifetimesOfOnePointer)
{
    Fixture f;
    std::string text;
    for (uint64_t i = 0; i < 4096; ++i)
        text += add(i * 16 + 1, 7, i) + remove(i * 16 + 9, 7);
    const auto idx = f.index(text);
    EXPECT_EQ(idx.size(), 4096u);
    for (uint64_t i = 0; i < 4096; i += 97) {
        const std::string want = fmt::format("qpair(ptr=0x7, thread={})", i);
        EXPECT_EQ(text_of(idx.find(7, i * 16 + 1)), want);
        EXPECT_EQ(text_of(idx.find(7, i * 16 + 9)), want);
        EXPECT_EQ(idx.find(7, i * 16 + 10), nullptr);
        EXPECT_EQ(idx.find(7, i * 16), nullptr);
    }
}
