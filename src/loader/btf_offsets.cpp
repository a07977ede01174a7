#include "loader/btf_offsets.h"

#include <bpf/btf.h>
#include <bpf/libbpf.h>
#include <cerrno>
#include <cstring>

#include "core/error.h"
#include "sys/dwarf_unwind.h"

namespace kdelay {
namespace {

const char* const kVmlinux = "/sys/kernel/btf/vmlinux";

std::optional<MemberLayout> find_member(const struct btf* btf, int32_t type_id,
                                        const std::string& name, uint32_t base)
{
    const struct btf_type* t = btf__type_by_id(btf, type_id);
    if (!t || !(btf_is_struct(t) || btf_is_union(t)))
        return std::nullopt;
    const struct btf_member* m = btf_members(t);
    for (uint16_t i = 0; i < btf_vlen(t); ++i, ++m) {
        const uint32_t offset = base + btf_member_bit_offset(t, i) / 8;
        const char* member_name = btf__name_by_offset(btf, m->name_off);
        if (member_name && name == member_name) {
            const long long size = btf__resolve_size(btf, m->type);
            return MemberLayout{offset, size > 0 ? static_cast<uint32_t>(size) : 0};
        }
        if (!member_name || !*member_name) {
            // Anonymous struct or union: its members belong to the parent.
            int32_t inner = btf__resolve_type(btf, m->type);
            if (inner >= 0)
                if (auto found = find_member(btf, inner, name, offset))
                    return found;
        }
    }
    return std::nullopt;
}

}  // namespace

namespace {
int vmlinux_errno = 0;
}  // namespace

const struct btf* vmlinux_btf()
{
    static const struct btf* const vmlinux = [] {
        struct btf* parsed = btf__load_vmlinux_btf();
        vmlinux_errno = errno;
        return libbpf_get_error(parsed) ? nullptr : parsed;
    }();
    return vmlinux;
}

KernelBtf::KernelBtf() : btf_(vmlinux_btf())
{
    if (!btf_)
        throw Error(Exit::osfile, std::string("cannot read kernel BTF at ") + kVmlinux + ": " +
                                      strerror(vmlinux_errno) + " (kdelay needs CONFIG_DEBUG_INFO_BTF)");
}

KernelBtf::KernelBtf(struct btf* owned) : btf_(owned), owned_(owned) {}

KernelBtf::~KernelBtf() { btf__free(owned_); }

std::optional<MemberLayout> KernelBtf::member(const std::string& type_name,
                                              const std::string& member_name) const
{
    int32_t id = btf__find_by_name_kind(btf_, type_name.c_str(), BTF_KIND_STRUCT);
    if (id < 0)
        id = btf__find_by_name_kind(btf_, type_name.c_str(), BTF_KIND_UNION);
    if (id < 0)
        return std::nullopt;
    return find_member(btf_, id, member_name, 0);
}

std::optional<int64_t> KernelBtf::enum_value(const std::string& type_name, const std::string& name) const
{
    const int32_t id = btf__find_by_name_kind(btf_, type_name.c_str(), BTF_KIND_ENUM);
    const struct btf_type* t = id < 0 ? nullptr : btf__type_by_id(btf_, id);
    if (!t)
        return std::nullopt;
    const struct btf_enum* e = btf_enum(t);
    for (uint16_t i = 0; i < btf_vlen(t); ++i, ++e) {
        const char* n = btf__name_by_offset(btf_, e->name_off);
        if (n && name == n)
            return e->val;
    }
    return std::nullopt;
}

bool KernelBtf::has_raw_tracepoint(const std::string& name) const
{
    return btf__find_by_name_kind(btf_, ("btf_trace_" + name).c_str(), BTF_KIND_TYPEDEF) >= 0;
}

std::optional<uint32_t> KernelBtf::struct_size(const std::string& type_name) const
{
    const int32_t id = btf__find_by_name_kind(btf_, type_name.c_str(), BTF_KIND_STRUCT);
    const long size = id < 0 ? -1 : btf__resolve_size(btf_, id);
    return size < 0 ? std::nullopt : std::optional<uint32_t>(static_cast<uint32_t>(size));
}

bool KernelBtf::has_function(const std::string& name) const
{
    return btf__find_by_name_kind(btf_, name.c_str(), BTF_KIND_FUNC) >= 0;
}

int KernelBtf::raw_tracepoint_args(const std::string& name) const
{
    // btf_trace_NAME is a pointer to a function whose first parameter is
    // the tracepoint's private data, not one of its arguments.
    const int32_t id = btf__find_by_name_kind(btf_, ("btf_trace_" + name).c_str(), BTF_KIND_TYPEDEF);
    if (id < 0)
        return -1;
    const struct btf_type* ptr = btf__type_by_id(btf_, btf__resolve_type(btf_, id));
    if (!ptr || !btf_is_ptr(ptr))
        return -1;
    const struct btf_type* proto = btf__type_by_id(btf_, ptr->type);
    if (!proto || !btf_is_func_proto(proto) || btf_vlen(proto) == 0)
        return -1;
    return btf_vlen(proto) - 1;
}

MemberLayout KernelBtf::require(const std::string& type_name,
                                const std::string& member_name) const
{
    if (auto m = member(type_name, member_name))
        return *m;
    throw Error(Exit::osfile, "kernel BTF has no " + type_name + "." + member_name);
}

std::optional<KernelLayout::Throttle> read_throttle_layout(const KernelBtf& btf)
{
    struct Names {
        const char* ended;
        const char* since;
        const char* clock;
    };
    for (const Names& n : {Names{"throttled_clock_self_time", "throttled_clock_self", "clock"},
                           Names{"throttled_clock_task_time", "throttled_clock_task", "clock_task"},
                           Names{"throttled_clock_pelt_time", "throttled_clock_pelt", "clock_pelt"}}) {
        const auto ended = btf.member("cfs_rq", n.ended);
        const auto since = btf.member("cfs_rq", n.since);
        const auto count = btf.member("cfs_rq", "throttle_count");
        const auto clock = btf.member("rq", n.clock);
        if (ended && since && count && clock && ended->size == 8 && since->size == 8 && count->size == 4 &&
            clock->size == 8)
            return KernelLayout::Throttle{*ended, *since, *count, *clock};
    }
    return std::nullopt;
}

KernelLayout read_kernel_layout(const KernelBtf& btf)
{
    KernelLayout layout{};
    layout.task_pid = btf.require("task_struct", "pid");
    layout.task_tgid = btf.require("task_struct", "tgid");
    auto state = btf.member("task_struct", "__state");
    layout.task_state = state ? *state : btf.require("task_struct", "state");
    layout.task_comm = btf.require("task_struct", "comm");
    const MemberLayout info = btf.require("task_struct", "sched_info");
    const auto in_info = [&](const char* name) {
        const MemberLayout m = btf.require("sched_info", name);
        return MemberLayout{info.offset + m.offset, m.size};
    };
    layout.task_run_delay = in_info("run_delay");
    layout.task_last_arrival = in_info("last_arrival");
    layout.task_last_queued = in_info("last_queued");
    const MemberLayout se = btf.require("task_struct", "se");
    const MemberLayout cfs_rq = btf.require("sched_entity", "cfs_rq");
    layout.task_cfs_rq = {se.offset + cfs_rq.offset, cfs_rq.size};
    layout.cfs_rq_rq = btf.require("cfs_rq", "rq");
    layout.rq_clock = btf.require("rq", "clock");
    layout.rq_cpu = btf.require("rq", "cpu");
    for (const MemberLayout& m : {layout.task_run_delay, layout.task_last_arrival, layout.task_last_queued,
                                  layout.task_cfs_rq, layout.cfs_rq_rq, layout.rq_clock})
        if (m.size != 8)
            throw Error(Exit::osfile, "kernel BTF: a run-queue clock or sched_info field is not 8 bytes");
    if (layout.rq_cpu.size != 4)
        throw Error(Exit::osfile, "kernel BTF: rq.cpu is not 4 bytes");
    layout.irqaction_name = btf.require("irqaction", "name");
    auto nr = btf.member("pt_regs", "orig_ax");
    layout.regs_syscall_nr = nr ? *nr : btf.require("pt_regs", "syscallno");
    auto ret = btf.member("pt_regs", "ax");
    layout.regs_return = ret ? *ret : btf.require("pt_regs", "regs");
    layout.regs_sp = btf.member("pt_regs", "sp");
    layout.task_nvcsw = btf.require("task_struct", "nvcsw");
    layout.task_group_leader = btf.require("task_struct", "group_leader");
    layout.task_nivcsw = btf.require("task_struct", "nivcsw");
    layout.switch_passes_prev_state = btf.raw_tracepoint_args("sched_switch") >= 4;
    layout.task_on_cpu = btf.member("task_struct", "on_cpu");
    layout.task_iterator = layout.task_on_cpu && (layout.task_on_cpu->size == 1 || layout.task_on_cpu->size == 4) &&
                           btf.has_function("bpf_iter_task");
    layout.task_pt_regs = btf.enum_value("bpf_func_id", "BPF_FUNC_task_pt_regs").has_value();
    layout.regs_cs = btf.member("pt_regs", "cs");
    layout.pt_regs_size = btf.struct_size("pt_regs").value_or(0);
    layout.task_stack = btf.member("task_struct", "stack");
    // x86-64: four pages, eight under KASAN (KASAN_STACK_ORDER).
    layout.thread_size = btf.has_function("__asan_load8") || btf.has_function("kasan_report") ? 32768 : 16384;
    layout.throttle = read_throttle_layout(btf);
    const auto steal = btf.member("rq", "prev_steal_time_rq");
    if (steal && steal->size == 8)
        layout.rq_steal = steal;
    for (const char* name : kPtRegsDwarfNames) {
        const auto m = btf.member("pt_regs", name);
        if (!m || m->size != 8) {
            layout.regs_dwarf.clear();
            break;
        }
        layout.regs_dwarf.push_back(m->offset);
    }
    return layout;
}

}  // namespace kdelay

namespace kdelay {

std::optional<BlockLayout> read_block_layout(const KernelBtf& btf)
{
    if (!btf.has_raw_tracepoint("block_rq_issue") || !btf.has_raw_tracepoint("block_rq_complete") ||
        !(btf.has_raw_tracepoint("block_io_start") || btf.has_raw_tracepoint("block_rq_insert")))
        return std::nullopt;
    if (btf.raw_tracepoint_args("block_rq_issue") != 1)  // 5.10 passes the queue first
        return std::nullopt;
    auto q = btf.member("request", "q");
    auto sector = btf.member("request", "__sector");
    auto flags = btf.member("request", "cmd_flags");
    auto disk = btf.member("request_queue", "disk");
    auto major = btf.member("gendisk", "major");
    auto minor = btf.member("gendisk", "first_minor");
    if (!q || !sector || !flags || !disk || !major || !minor)
        return std::nullopt;
    BlockLayout layout{*q, *sector, *flags, *disk, *major, *minor, std::nullopt};
    if (!btf.has_raw_tracepoint("block_io_start") && btf.has_raw_tracepoint("block_bio_queue")) {
        auto bdev = btf.member("bio", "bi_bdev");
        auto iter = btf.member("bio", "bi_iter");
        auto iter_sector = btf.member("bvec_iter", "bi_sector");
        auto bdev_disk = btf.member("block_device", "bd_disk");
        if (bdev && iter && iter_sector && bdev_disk)
            layout.bio = BioLayout{*bdev, {iter->offset + iter_sector->offset, iter_sector->size}, *bdev_disk};
    }
    return layout;
}

CgroupLayout read_cgroup_layout(const KernelBtf& btf, const std::string& controller)
{
    CgroupLayout c{};
    c.task_cgroups = btf.require("task_struct", "cgroups");
    c.css_set_dfl_cgrp = btf.require("css_set", "dfl_cgrp");
    c.css_set_subsys = btf.require("css_set", "subsys");
    c.css_cgroup = btf.require("cgroup_subsys_state", "cgroup");
    c.cgroup_kn = btf.require("cgroup", "kn");
    const MemberLayout self = btf.require("cgroup", "self");
    const MemberLayout parent = btf.require("cgroup_subsys_state", "parent");
    c.cgroup_parent = {self.offset + parent.offset, parent.size};
    c.kernfs_id = btf.require("kernfs_node", "id");
    c.kernfs_name = btf.require("kernfs_node", "name");
    if (self.offset != 0)
        throw Error(Exit::osfile, "kernel BTF: cgroup.self is not at the start of struct cgroup");
    if (c.kernfs_id.size != 8)
        throw Error(Exit::osfile, "kernel BTF: kernfs_node.id is not 8 bytes (Linux 5.5 or later)");
    if (!controller.empty()) {
        const auto id = btf.enum_value("cgroup_subsys_id", controller + "_cgrp_id");
        if (!id)
            throw Error(Exit::osfile, "kernel BTF: this kernel has no cgroup controller " + controller);
        c.subsys = static_cast<int>(*id);
    }
    return c;
}

std::optional<PidNsLayout> read_pidns_layout(const KernelBtf& btf)
{
    const auto thread_pid = btf.member("task_struct", "thread_pid");
    const auto leader = btf.member("task_struct", "group_leader");
    const auto tgid = btf.member("task_struct", "tgid");
    const auto level = btf.member("pid", "level");
    const auto numbers = btf.member("pid", "numbers");
    const auto upid = btf.struct_size("upid");
    const auto nr = btf.member("upid", "nr");
    const auto ns = btf.member("upid", "ns");
    const auto common = btf.member("pid_namespace", "ns");
    const auto inum = btf.member("ns_common", "inum");
    if (!btf.has_function("bpf_iter_task") || !thread_pid || !leader || !tgid || !level || !numbers || !upid ||
        !nr || !ns || !common || !inum)
        return std::nullopt;
    return PidNsLayout{*thread_pid, *leader, *tgid, *level, *numbers, *upid, *nr, *ns, common->offset + inum->offset};
}

}  // namespace kdelay
