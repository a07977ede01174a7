// Malformed or hostile trigger strings, shared by the unit and e2e tests.
// Every one must be refused with EX_CONFIG before anything is compiled.
#pragma once

#include <string>
#include <vector>

inline const std::vector<std::string>& kd_hostile_triggers()
{
    static const std::vector<std::string> strings = {
        "",
        ":",
        "u",
        "u:",
        "u:prov",
        "u::probe",
        "u:prov:",
        "u:a:b:c",
        "usdt:prov-ider:probe",
        "x:foo:bar",
        "tracepoint:sched:sched_switch",
        "t:sched",
        "t:sched:sched_switch:extra",
        "t:sched:sched_switch) { bpf_override_return(ctx, 0); } int x(void *ctx",
        "t:sched:sched_switch\n",
        "t:sched;:x",
        "t:../../etc:passwd",
        "k:",
        "k:foo bar",
        "k:foo;bar",
        "k:foo(){}",
        "kr:a:b",
        "kprobe:1abc",
        "up:",
        "up:func()",
        "up:lib:func:extra",
        "up::func",
        "up:/tmp/../etc/passwd:main",
        "up:relative/path:main",
        "up:/path with space:main",
        "ur:c:free\"",
        "upr:c:free'",
        "uretprobe:c:free\\",
        "u:prov:probe\x01",
        "u:prov:pr\xc3\xa9" "be",
        "up:`id`",
        "up:$(id)",
        "u:" + std::string(200, 'a') + ":probe",
        "k:" + std::string(2000, 'a'),
        "up:c:{{target_tgid}}",
        "u:{{> delay_abi}}:x",
    };
    return strings;
}
