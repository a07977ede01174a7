// --stack-copy's user side (src/stall/stack_copies.cpp, src/sys/dwarf_unwind.cpp):
// the copies kept by interval until read, and a copy of this test's own
// stack unwound by libdwfl through functions built without frame pointers.
#include <gtest/gtest.h>

#include <cstring>
#include <sys/uio.h>
#include <unistd.h>

#include "profile/process_stacks.h"
#include "stall/stack_copies.h"

namespace kdelay {
namespace {

std::vector<uint8_t> record(uint32_t tid, kd_gen_t gen, uint32_t sample, uint32_t bytes)
{
    std::vector<uint8_t> r(sizeof(kd_stack_copy) + bytes, 0xab);
    kd_stack_copy c{};
    c.tid = tid;
    c.gen = gen;
    c.sample = sample;
    c.bytes = bytes;
    c.base = 0x7ff000;
    c.regs_bytes = 168;
    std::memcpy(r.data(), &c, sizeof(c));
    return r;
}

void add(StackCopies& copies, const std::vector<uint8_t>& r) { copies.add(r.data(), r.size()); }

TEST(StackCopies, AThreadKeepsItsLastTwoIntervalsUntilOneIsTaken)
{
    StackCopies copies;
    add(copies, record(7, 4, 0, 512));
    add(copies, record(7, 4, 1, 1024));
    add(copies, record(8, 1, 0, 512));
    // Interval 5 opens while 4 is unread (4 may be a stall): both stay.
    add(copies, record(7, 5, 0, 512));
    EXPECT_EQ(copies.bytes(), 4 * sizeof(kd_stack_copy) + 2560);
    // Interval 6: 4 was short (a stall's thread begins no interval of its
    // parity until kdelay has read it).
    add(copies, record(7, 6, 0, 512));
    EXPECT_TRUE(copies.take(7, 4).samples.empty());
    const StackCopies::Interval five = copies.take(7, 5);
    ASSERT_EQ(five.samples.size(), 1u);
    EXPECT_EQ(five.samples.at(0).size(), sizeof(kd_stack_copy) + 512);
    EXPECT_TRUE(copies.take(7, 5).samples.empty()) << "taken once";
    copies.forget(7);
    EXPECT_EQ(copies.bytes(), sizeof(kd_stack_copy) + 512) << "thread 8's copy alone";
    EXPECT_EQ(copies.take(8, 1).samples.size(), 1u);
    EXPECT_EQ(copies.bytes(), 0u);
}

TEST(StackCopies, AWaitsCopyIsKeptByWhenTheWaitBegan)
{
    StackCopies copies;
    std::vector<uint8_t> wait = record(7, 2, KD_COPY_OF_WAIT, 512);
    kd_stack_copy head;
    std::memcpy(&head, wait.data(), sizeof(head));
    head.wait_start = 123456;
    std::memcpy(wait.data(), &head, sizeof(head));
    add(copies, wait);
    add(copies, record(7, 2, 0, 512));
    const StackCopies::Interval two = copies.take(7, 2);
    ASSERT_EQ(two.waits.size(), 1u);
    EXPECT_EQ(two.waits.count(123456), 1u);
    EXPECT_EQ(two.samples.size(), 1u) << "a sample's index is not a wait's";
    EXPECT_EQ(copies.bytes(), 0u);
}

TEST(StackCopies, ARecordShorterThanItSaysIsDropped)
{
    StackCopies copies;
    std::vector<uint8_t> r = record(7, 1, 0, 512);
    copies.add(r.data(), r.size() - 1);
    copies.add(r.data(), sizeof(kd_stack_copy) - 1);
    EXPECT_EQ(copies.bytes(), 0u);
    EXPECT_TRUE(copies.take(7, 1).samples.empty());
}

TEST(StackCopies, TheFramePointerWalkStandsOnlyWhereItGoesFurtherTheSameWay)
{
    const std::vector<uint64_t> unwound = {1, 2, 3};
    EXPECT_EQ(better_stack(unwound, {1, 2, 3, 4}), (std::vector<uint64_t>{1, 2, 3, 4}));
    EXPECT_EQ(better_stack(unwound, {1, 9, 3, 4}), unwound) << "a walk that went wrong at a frame without one";
    EXPECT_EQ(better_stack(unwound, {1}), unwound);
    EXPECT_EQ(better_stack({}, {1, 2}), (std::vector<uint64_t>{1, 2}));
}

// The registers and the top of the stack as the kernel side copies them,
// in pt_regs' order by the places given.
struct Captured {
    std::vector<uint8_t> record;
    uint64_t into_middle = 0, into_outer = 0;  // the return addresses above capture()
};

const std::vector<uint32_t> kRegsAt = [] {
    std::vector<uint32_t> at;
    for (uint32_t i = 0; i < kDwarfRegs; ++i)
        at.push_back(8 * i);
    return at;
}();

__attribute__((noinline, optimize("omit-frame-pointer"))) void capture(Captured& c)
{
    uint64_t rsp, rbp, rip;
    asm volatile("mov %%rsp, %0\n\tmov %%rbp, %1\n\tlea 0(%%rip), %2" : "=r"(rsp), "=r"(rbp), "=r"(rip));
    c.into_middle = reinterpret_cast<uint64_t>(__builtin_return_address(0));
    constexpr uint32_t kBytes = 8192;
    c.record = record(gettid(), 1, 0, kBytes);
    kd_stack_copy head;
    std::memcpy(&head, c.record.data(), sizeof(head));
    // rip is here, rsp as it is here: the CFI of this spot tells the CFA.
    head.base = rsp;
    head.regs[6] = rbp;
    head.regs[7] = rsp;
    head.regs[16] = rip;
    // As the kernel side: up to where the stack's mapping ends.
    iovec local{c.record.data() + sizeof(head), kBytes}, remote{reinterpret_cast<void*>(rsp), kBytes};
    const ssize_t got = process_vm_readv(getpid(), &local, 1, &remote, 1, 0);
    head.bytes = got > 0 ? static_cast<uint32_t>(got) : 0;
    std::memcpy(c.record.data(), &head, sizeof(head));
}

__attribute__((noinline, optimize("omit-frame-pointer"))) void middle(Captured& c)
{
    c.into_outer = reinterpret_cast<uint64_t>(__builtin_return_address(0));
    capture(c);
    asm volatile("" ::: "memory");  // not a tail call
}

__attribute__((noinline, optimize("omit-frame-pointer"))) void outer(Captured& c)
{
    middle(c);
    asm volatile("" ::: "memory");
}

TEST(DwarfUnwinder, AStackCopyUnwindsThroughFunctionsWithoutFramePointers)
{
    Captured c;
    outer(c);
    DwarfRegs regs{};
    StackCopy stack;
    ASSERT_TRUE(copy_registers(c.record.data(), c.record.size(), kRegsAt, regs, stack));
    DwarfUnwinder unwinder(getpid());
    const std::vector<uint64_t> pcs = unwinder.unwind(regs, stack);
    ASSERT_GE(pcs.size(), 4u);
    EXPECT_EQ(pcs[0], regs[16]);
    EXPECT_EQ(pcs[1], c.into_middle);
    EXPECT_EQ(pcs[2], c.into_outer);
    // The copy of 8 KiB ends the walk, or the stack's start does.
    EXPECT_LE(pcs.size(), 127u);

    // A copy cut short ends the unwind where it ends.
    DwarfRegs cut_regs = regs;
    StackCopy cut = stack;
    cut.bytes = 0;
    EXPECT_LE(unwinder.unwind(cut_regs, cut).size(), 1u);
}

}  // namespace
}  // namespace kdelay
