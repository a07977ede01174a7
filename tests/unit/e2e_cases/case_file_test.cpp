// The e2e case format (tests/support/case_file): parsing, and expectations
// checked against a made-up run, without root.
#include <gtest/gtest.h>
#include <seccomp.h>

#include "case_file.h"

using namespace kdtest;

namespace {

const char* const kCase = R"(# a comment
NAME SomeCase
REQUIRES bpf schedstats
WORKLOAD kd_workload futex 300
KDELAY -p {pid} --sample-time 4
STEP signal workload USR1
STEP wait 30s tid kd-futex-a
STEP sleep 200ms
STEP signal kdelay INT
TIMEOUT 45
EXPECT exit == 0
)";

CaseRun made_up_run()
{
    CaseRun r;
    r.status = 0;
    r.out = R"({"type":"marker","marker":"start","time_unix_ns":1}
{"type":"sample","threads":[{"name":"a","tid":10,"run":{"count":3,"total_ns":3000},"syscalls":[{"name":"futex","nr":202,"count":7}]},{"name":"b","tid":11,"run":null,"syscalls":[]}]}
{"type":"sample","threads":[{"name":"a","tid":10,"run":{"count":1,"total_ns":500},"syscalls":[]}]}
{"type":"marker","marker":"stop","trigger_ns":42}
{"type":"marker","marker":"dump","delta_ns":4000}
{"type":"marker","marker":"dump","delta_ns":600}
)";
    r.err = "kdelay: note\n";
    r.workload_outs = {"ready\ncalls a 7\ndone\n"};
    return r;
}

std::string check(const std::string& expr) { return check_expectation(expr, made_up_run()); }

}  // namespace

TEST(CaseFile, ParsesEveryKey)
{
    const E2eCase c = parse_case(kCase, "x.case");
    EXPECT_EQ(c.name, "SomeCase");
    EXPECT_EQ(c.line, 2);
    EXPECT_EQ(c.requires_, (std::vector<std::string>{"bpf", "schedstats"}));
    EXPECT_EQ(c.workloads, (std::vector<std::vector<std::string>>{{"kd_workload", "futex", "300"}}));
    EXPECT_EQ(c.kdelay, (std::vector<std::string>{"-p", "{pid}", "--sample-time", "4"}));
    ASSERT_EQ(c.steps.size(), 4u);
    EXPECT_EQ(c.steps[0].kind, CaseStep::Kind::signal);
    EXPECT_FALSE(c.steps[0].to_kdelay);
    EXPECT_EQ(c.steps[1].kind, CaseStep::Kind::wait);
    EXPECT_EQ(c.steps[1].text, "tid kd-futex-a");
    EXPECT_EQ(c.steps[1].time, std::chrono::seconds(30));
    EXPECT_EQ(c.steps[2].time, std::chrono::milliseconds(200));
    EXPECT_TRUE(c.steps[3].to_kdelay);
    EXPECT_EQ(c.timeout, std::chrono::seconds(45));
    ASSERT_EQ(c.expects.size(), 1u);
    EXPECT_EQ(c.expects[0].line, 11);
}

TEST(CaseFile, AMalformedLineIsNamedByFileAndLine)
{
    auto message = [](const std::string& text) {
        try {
            parse_case(text, "bad.case");
        } catch (const std::runtime_error& e) {
            return std::string(e.what());
        }
        return std::string("parsed");
    };
    EXPECT_EQ(message("NAME x\nWORKLOAD w\nFROB 1\n"),
              "bad.case:3: unknown key 'FROB' (NAME ERROR REQUIRES TAGS WORKLOAD COMMAND READY KDELAY STEP TIMEOUT EXPECT)");
    EXPECT_EQ(message("NAME x\nREQUIRES gpu\n"),
              "bad.case:2: unknown requirement 'gpu' (bpf, kprobes, schedstats, tracepoint:SYSTEM:EVENT, cpus:N)");
    EXPECT_EQ(message("NAME x\nREQUIRES cpus:two\n"),
              "bad.case:2: unknown requirement 'cpus:two' (bpf, kprobes, schedstats, tracepoint:SYSTEM:EVENT, cpus:N)");
    EXPECT_EQ(message("NAME x\nREQUIRES tracepoint:lock\n"),
              "bad.case:2: unknown requirement 'tracepoint:lock' (bpf, kprobes, schedstats, tracepoint:SYSTEM:EVENT, cpus:N)");
    EXPECT_EQ(message("NAME x\nSTEP signal workload FOO\n"), "bad.case:2: unknown signal 'FOO'");
    EXPECT_EQ(message("NAME x\nSTEP sleep soon\n"), "bad.case:2: a STEP duration is a number with s or ms");
    EXPECT_EQ(message("NAME x\nWORKLOAD w\n"), "bad.case:1: x has no EXPECT");
    EXPECT_EQ(message("NAME x\nWORKLOAD w\nNAME y\nWORKLOAD w\nEXPECT exit == 0\n"), "bad.case:1: x has no EXPECT");
    EXPECT_EQ(message("WORKLOAD w\nEXPECT exit == 0\n"), "bad.case:1: WORKLOAD before any NAME");
    EXPECT_EQ(message("NAME x\nEXPECT exit == 0\n"), "bad.case:1: x has no WORKLOAD or COMMAND");
    EXPECT_EQ(message("NAME x\nWORKLOAD w\nCOMMAND w\nEXPECT exit == 0\n"),
              "bad.case:1: x has both a WORKLOAD and a COMMAND");
    EXPECT_EQ(message("NAME x\nCOMMAND w\nSTEP signal workload USR1\nEXPECT exit == 0\n"),
              "bad.case:1: x: a COMMAND case has no workload to signal or wait for");
    EXPECT_EQ(message("# nothing\n"), "bad.case: no NAME or ERROR");
    EXPECT_EQ(message("ERROR x 64 --bogus\n"), "bad.case:1: ERROR is 'NAME EXIT ARGS... => STDERR LINE'");
    EXPECT_EQ(message("ERROR x sixty-four --bogus => kdelay: no\n"), "bad.case:1: ERROR's exit status is a number: sixty-four");
}

// A COMMAND is started by kdelay itself; the case may still signal kdelay.
TEST(CaseFile, ACommandIsAProgramKdelayStarts)
{
    const E2eCase c = parse_case("NAME Cmd\nCOMMAND kd_workload syscalls 5 1 --now\nKDELAY --sample-time 20\n"
                                 "STEP sleep 100ms\nSTEP signal kdelay INT\nEXPECT exit == 0\n",
                                 "x.case");
    EXPECT_TRUE(c.workloads.empty());
    EXPECT_EQ(c.command, (std::vector<std::string>{"kd_workload", "syscalls", "5", "1", "--now"}));
    EXPECT_EQ(c.kdelay, (std::vector<std::string>{"--sample-time", "20"}));
    EXPECT_EQ(c.steps.size(), 2u);
}

// A file holds several cases: each NAME starts one, each ERROR is one.
TEST(CaseFile, SeveralCasesAndErrorOneLinersPerFile)
{
    const auto cases = parse_cases(std::string(kCase) + "TAGS kernel rt\n\n"
                                   "ERROR Nan 64 --sample-time nan '' => kdelay: --sample-time: 'nan' is bad\n"
                                   "NAME Other\nWORKLOAD kd_workload spin\nEXPECT samples == 1\n",
                                   "x.case");
    ASSERT_EQ(cases.size(), 3u);
    EXPECT_EQ(cases[0].name, "SomeCase");
    EXPECT_EQ(cases[0].tags, (std::vector<std::string>{"kernel", "rt"}));
    EXPECT_EQ(cases[0].expects.size(), 1u);
    EXPECT_TRUE(cases[1].is_error);
    EXPECT_EQ(cases[1].name, "Nan");
    EXPECT_EQ(cases[1].line, 14);
    EXPECT_EQ(cases[1].error_exit, 64);
    EXPECT_EQ(cases[1].kdelay, (std::vector<std::string>{"--sample-time", "nan", ""}));
    EXPECT_EQ(cases[1].error_line, "kdelay: --sample-time: 'nan' is bad");
    EXPECT_EQ(cases[2].name, "Other");
    EXPECT_TRUE(cases[2].tags.empty());
    EXPECT_THROW(parse_case(std::string(kCase) + "NAME Other\nWORKLOAD w\nEXPECT exit == 0\n", "x.case"),
                 std::runtime_error) << "parse_case takes one case";
}

// Cases name syscalls; the number is this architecture's.
TEST(CaseFile, SyscallsAreNamedNotNumbered)
{
    CaseRun r;
    const int futex = seccomp_syscall_resolve_name("futex");
    ASSERT_GE(futex, 0);
    r.out = R"({"type":"sample","threads":[{"name":"a","syscalls":[{"name":"futex","nr":)" + std::to_string(futex) +
            "}]}]}\n";
    EXPECT_EQ(check_expectation("thread(a).syscalls[futex].nr == syscall_nr(futex)", r), "");
    EXPECT_NE(check_expectation("thread(a).syscalls[futex].nr == syscall_nr(getppid)", r), "");
    EXPECT_THROW(check_expectation("1 == syscall_nr(no_such_call)", r), std::runtime_error);
}

TEST(CaseFile, PathsSelectByIndexNameAndField)
{
    EXPECT_EQ(check("exit == 0"), "");
    EXPECT_EQ(check("samples == 2"), "");
    EXPECT_EQ(check("thread(a).syscalls[futex].count == 7"), "");
    EXPECT_EQ(check("sample[1].threads[a].run.total_ns == 500"), "");
    EXPECT_EQ(check("sample.threads[tid=11].name == \"b\""), "");
    EXPECT_EQ(check("sample[0].threads[1].run == null"), "");
    EXPECT_EQ(check("marker(stop).trigger_ns == 42"), "");
    EXPECT_EQ(check("thread(a).syscalls == 1"), "") << "a container compares by its size";
}

TEST(CaseFile, ComparisonsRangesAndArithmetic)
{
    EXPECT_EQ(check("thread(a).run.total_ns in 2_999 .. 3'001"), "");
    EXPECT_EQ(check("thread(a).run.total_ns in 1 .. 2"), "3000 is not in 1..2");
    EXPECT_EQ(check("thread(a).run.total_ns / 3 == 1000"), "");
    EXPECT_EQ(check("thread(a).run.count * 1000 == thread(a).run.total_ns"), "");
    EXPECT_EQ(check("thread(a).run.total_ns - sample[1].threads[a].run.total_ns == 2500"), "");
    EXPECT_EQ(check("thread(a).run.count + 1 > 3"), "");
    EXPECT_EQ(check("thread(a).run.count >= 4"), "3 >= 4 is false");
    EXPECT_EQ(check("thread(a).syscalls[futex].count == workload(calls a)"), "");
}

TEST(CaseFile, EachSampleAndMarkerByIndex)
{
    EXPECT_EQ(check("marker(dump)[1].delta_ns == 600"), "");
    EXPECT_EQ(check("marker(dump)[*].delta_ns >= sample[*].threads[a].run.total_ns"), "");
    EXPECT_EQ(check("sample[*].threads[a].run.count == 3"), "with [*] = [1]: 1 == 3 is false");
}

// --stall's lines: counted, and each thread's Nth picked by its name.
TEST(CaseFile, StallsByThreadName)
{
    CaseRun r;
    r.out = R"({"type":"stall","start_ns":1,"thread":{"name":"a","locks":[{"name":"rwsem:W","count":2}]}})"
            "\n"
            R"({"type":"stall","start_ns":2,"thread":{"name":"b"}})"
            "\n"
            R"({"type":"stall","start_ns":3,"thread":{"name":"a","locks":[]}})"
            "\n";
    EXPECT_EQ(check_expectation("stalls == 3", r), "");
    EXPECT_EQ(check_expectation("samples == 0", r), "");
    EXPECT_EQ(check_expectation("stall(a).thread.locks[0].count == 2", r), "");
    EXPECT_EQ(check_expectation("stall(a)[1].start_ns == 3", r), "");
    EXPECT_EQ(check_expectation("stall(b).start_ns == 2", r), "");
    EXPECT_EQ(check_expectation("stall(a)[2] == missing", r), "");
    EXPECT_EQ(check_expectation("stall(c).start_ns == 1", r), "(missing) == 1 is false");
}

TEST(CaseFile, MissingIsWrittenOut)
{
    EXPECT_EQ(check("thread(a).syscalls[getpid] == missing"), "");
    EXPECT_EQ(check("thread(a).syscalls[futex] != missing"), "");
    EXPECT_EQ(check("thread(a).syscalls[futex] == missing"), "3 == (missing) is false") << "an object shows its size";
    EXPECT_EQ(check("thread(b).run == missing"), "null == (missing) is false") << "null is there";
}

TEST(CaseFile, WhatIsNotThereNeverHolds)
{
    EXPECT_EQ(check("thread(zz).run.count >= 0"), "(missing) >= 0 is false");
    EXPECT_EQ(check("workload(calls zz) != 1"), "(missing) != 1 is false");
    EXPECT_EQ(check("sample[5].threads == 0"), "(missing) == 0 is false");
}

TEST(CaseFile, OutputTextChecks)
{
    EXPECT_EQ(check("stderr contains \"note\""), "");
    EXPECT_EQ(check("stderr lacks \"sha1\""), "");
    EXPECT_EQ(check("stderr lacks \"note\""), "stderr contains \"note\"");
}

TEST(CaseFile, AMalformedExpectationThrows)
{
    EXPECT_THROW(check("exit"), std::runtime_error);
    EXPECT_THROW(check("exit == "), std::runtime_error);
    EXPECT_THROW(check("bogus == 1"), std::runtime_error);
    EXPECT_THROW(check("exit == 0 junk"), std::runtime_error);
    EXPECT_THROW(check("thread(a.run == 1"), std::runtime_error);
}

// Several WORKLOADs: {pidN} names the Nth, "signal workloadN" signals it
// alone and "signal workload" every one; workloadN() reads its output and
// thread(NAME PID) picks a thread by its process too.
TEST(CaseFile, SeveralWorkloads)
{
    const E2eCase c = parse_case("NAME Two\nWORKLOAD kd_workload spin\nWORKLOAD kd_workload syscalls 7 1\n"
                                 "KDELAY -p {pid},{pid2}\nSTEP signal workload USR1\nSTEP signal workload2 KILL\n"
                                 "EXPECT exit == 0\n",
                                 "x.case");
    ASSERT_EQ(c.workloads.size(), 2u);
    EXPECT_EQ(c.workloads[1], (std::vector<std::string>{"kd_workload", "syscalls", "7", "1"}));
    EXPECT_EQ(c.steps[0].workload, 0);
    EXPECT_EQ(c.steps[1].workload, 2);
    EXPECT_EQ(with_pids("-p {pid},{pid2} {pid1}", {10, 20}), "-p 10,20 10");
    EXPECT_THROW(parse_case("NAME T\nWORKLOAD w\nSTEP signal workload2 KILL\nEXPECT exit == 0\n", "x.case"),
                 std::runtime_error)
        << "no second workload";
    EXPECT_THROW(parse_case("NAME T\nWORKLOAD w\nSTEP signal workload9 KILL\nEXPECT exit == 0\n", "x.case"),
                 std::runtime_error);

    CaseRun r = made_up_run();
    r.out = R"({"type":"sample","threads":[{"name":"c","pid":10,"tid":10,"x":1},{"name":"c","pid":20,"tid":21,"x":2}]})";
    r.workload_outs.push_back("tid c 21\n");
    EXPECT_EQ(check_expectation("thread(c).x == 1", r), "");
    EXPECT_EQ(check_expectation("thread(c 20).x == 2", r), "");
    EXPECT_EQ(check_expectation("thread(c 20).tid == workload2(tid c)", r), "");
    EXPECT_EQ(check_expectation("workload(calls a) == 7", r), "");
    EXPECT_NE(check_expectation("thread(c 30).x == 2", r), "");
    EXPECT_THROW(check_expectation("workload3(tid c) == 1", r), std::runtime_error);
}

// A OR B holds when one of them does; " or " inside a string is text.
TEST(CaseFile, AlternativesAndStderrLines)
{
    EXPECT_EQ(check("samples == 3 or samples == 2"), "");
    EXPECT_EQ(check("sample.threads[z].run.count == missing or sample.threads[z].run.count < 5"), "");
    EXPECT_EQ(check("sample.threads[a].run.count == missing or sample.threads[a].run.count < 5"), "");
    const std::string both = check("samples == 3 or exit == 1");
    EXPECT_NE(both.find(", and "), std::string::npos) << both;
    EXPECT_EQ(check("stderr contains \"kdelay: note\" or samples == 0"), "");
    EXPECT_NE(check("stderr contains \"note or samples\""), "");
    EXPECT_EQ(check("stderr_lines == 1"), "");
}
