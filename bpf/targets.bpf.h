/* Whether a task belongs to the target. kd_config.h gives it as processes,
 * TARGET_TGIDS (how many; 0: every process) and TARGET_TGID_0..., or as a
 * cgroup, TARGET_CGROUP_ID (0: none). Processes are constants, no map
 * lookup: this runs for every task on the machine, and one process costs
 * one compare. A cgroup is matched by its id (the current task's from a
 * helper, a typed task's by plain loads); a cgroup below it by walking up
 * once: the verdict is kept by the cgroup's id, which the kernel never
 * reuses. A cgroup target also has a parent, TARGET_CGROUP_PARENT_ID (0:
 * a root), and a name there: a cgroup of that name under that parent is the
 * target too, so that a unit restarted in a cgroup made anew is followed
 * from its first task on, before kdelay hears of it. */
#ifndef KDELAY_TARGETS_BPF_H
#define KDELAY_TARGETS_BPF_H

#include "kd_config.h"
#include "kd_config_names.h"
#include "target_abi.h"
#include "typed_load.bpf.h"

KD_REQUIRE_CONFIG(KD_TARGET_CONFIG)
KD_REQUIRE_OFFSETS(KD_CGROUP_OFFSETS)

#if TARGET_TGIDS > KD_MAX_TARGETS
#error "more target processes than is_target() compares"
#endif
#if TARGET_TGIDS && TARGET_CGROUP_ID
#error "a target is processes or a cgroup, not both"
#endif

/* The target's process i: the list is padded with KD_NO_ID up to
 * KD_MAX_TARGETS, so after the unrolling below each compare is with a
 * constant, as a written-out chain of them. */
static __always_inline __u32 target_tgid(int i)
{
    return i == 0 ? TARGET_TGID_0 : i == 1 ? TARGET_TGID_1 : i == 2 ? TARGET_TGID_2 : i == 3 ? TARGET_TGID_3
         : i == 4 ? TARGET_TGID_4 : i == 5 ? TARGET_TGID_5 : i == 6 ? TARGET_TGID_6 : TARGET_TGID_7;
}

static __always_inline int tgid_is_target(__u32 tgid)
{
    if (TARGET_TGIDS == 0)
        return 1;
#pragma unroll
    for (int i = 0; i < TARGET_TGIDS; i++)
        if (tgid == target_tgid(i))
            return 1;
    return 0;
}

#if TARGET_CGROUP_ID
BPF_TABLE("lru_hash", __u64, __u8, target_cgroup_verdicts, KD_CGROUP_VERDICTS);

static __always_inline void *kernel_ptr(void *object, __u64 off)
{
    void *p = 0;
    bpf_probe_read_kernel(&p, sizeof(p), (char *)object + off);
    return p;
}

#if TARGET_CGROUP_PARENT_ID
struct kd_cgroup_name {
    char bytes[KD_CGROUP_NAME_MAX];
};
BPF_PERCPU_ARRAY(cgroup_name_scratch, struct kd_cgroup_name, 1);

/* Whether cgroup's name is the target's: its length, then its hash. */
static __always_inline int cgroup_name_is_target(void *cgroup)
{
    __u32 zero = 0;
    struct kd_cgroup_name *name = cgroup_name_scratch.lookup(&zero);
    if (!name)
        return 0;
    const char *kn_name = kernel_ptr(kernel_ptr(cgroup, CGROUP_KN_OFF), KERNFS_NAME_OFF);
    if (bpf_probe_read_kernel_str(name->bytes, sizeof(name->bytes), kn_name) != TARGET_CGROUP_NAME_LEN + 1)
        return 0;
    __u64 hash = KD_FNV1A_OFFSET;
    for (int i = 0; i < TARGET_CGROUP_NAME_LEN && i < KD_CGROUP_NAME_MAX; i++) {
        hash ^= (unsigned char)name->bytes[i];
        hash *= KD_FNV1A_PRIME;
    }
    return hash == TARGET_CGROUP_NAME_HASH;
}
#else
static __always_inline int cgroup_name_is_target(void *cgroup) { return 0; }
#endif

/* Whether cgroup or one of its ancestors is the target's: read with
 * helpers, once per cgroup. */
static __always_inline int cgroup_below_target(void *cgroup)
{
    void *below = 0;  /* the child on the way up: the target's name under its parent */
    for (int depth = 0; depth < KD_CGROUP_DEPTH && cgroup; depth++) {
        __u64 id = 0;
        bpf_probe_read_kernel(&id, sizeof(id), (char *)kernel_ptr(cgroup, CGROUP_KN_OFF) + KERNFS_ID_OFF);
        if (id == TARGET_CGROUP_ID)
            return 1;
        if (TARGET_CGROUP_PARENT_ID && id == TARGET_CGROUP_PARENT_ID)
            return below && cgroup_name_is_target(below);
        below = cgroup;
        cgroup = kernel_ptr(cgroup, CGROUP_PARENT_OFF);
    }
    return 0;
}

/* Whether the cgroup of id, task's own (0: the current task), is the
 * target's or below it; the verdict is kept by id. */
static __always_inline int cgroup_is_target(__u64 id, void *task)
{
    if (id == TARGET_CGROUP_ID)
        return 1;
    __u8 *known = target_cgroup_verdicts.lookup(&id);
    if (known)
        return *known;
    if (!task)
        task = (void *)bpf_get_current_task();
    void *css_set = kernel_ptr(task, TASK_CGROUPS_OFF);
    void *cgroup = TARGET_CGROUP_V1 ? kernel_ptr(kernel_ptr(css_set, CSS_SET_SUBSYS_OFF + TARGET_CGROUP_SUBSYS * sizeof(void *)),
                                                 CSS_CGROUP_OFF)
                                    : kernel_ptr(css_set, CSS_SET_DFL_CGRP_OFF);
    __u8 verdict = cgroup_below_target(cgroup);
    target_cgroup_verdicts.update(&id, &verdict);
    return verdict;
}

/* The current task, of process tgid. A cgroup2 target asks for the
 * current task's cgroup id; a v1 controller's is read from its css. */
static __always_inline int is_target_current(__u32 tgid)
{
    if (!TARGET_CGROUP_V1)
        return cgroup_is_target(bpf_get_current_cgroup_id(), 0);
    void *task = (void *)bpf_get_current_task();
    void *css = kernel_ptr(kernel_ptr(task, TASK_CGROUPS_OFF), CSS_SET_SUBSYS_OFF + TARGET_CGROUP_SUBSYS * sizeof(void *));
    __u64 id = 0;
    bpf_probe_read_kernel(&id, sizeof(id), (char *)kernel_ptr(kernel_ptr(css, CSS_CGROUP_OFF), CGROUP_KN_OFF) + KERNFS_ID_OFF);
    return cgroup_is_target(id, task);
}

/* A task the kernel typed from BTF (a tp_btf program's), of process tgid:
 * its cgroup's id comes by plain loads. */
static __always_inline int is_target_task(void *task, __u32 tgid)
{
    void *css_set = (void *)typed_u64(task, TASK_CGROUPS_OFF);
    void *cgroup = TARGET_CGROUP_V1
        ? (void *)typed_u64((void *)typed_u64(css_set, CSS_SET_SUBSYS_OFF + TARGET_CGROUP_SUBSYS * sizeof(void *)),
                            CSS_CGROUP_OFF)
        : (void *)typed_u64(css_set, CSS_SET_DFL_CGRP_OFF);
    return cgroup_is_target(typed_u64((void *)typed_u64(cgroup, CGROUP_KN_OFF), KERNFS_ID_OFF), task);
}
#else
/* The current task, of process tgid. */
static __always_inline int is_target_current(__u32 tgid) { return tgid_is_target(tgid); }

/* A task the kernel typed from BTF, of process tgid. */
static __always_inline int is_target_task(void *task, __u32 tgid) { return tgid_is_target(tgid); }
#endif

#endif
