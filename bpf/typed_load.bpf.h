/* Loads from kernel structs the kernel typed from BTF. */
#ifndef KDELAY_TYPED_LOAD_BPF_H
#define KDELAY_TYPED_LOAD_BPF_H

/* A field at off in a struct the kernel typed from BTF (a task a
 * BTF_TRACEPOINT_PROBE is passed, and what it points to), loaded by one
 * instruction. Written as that instruction: BCC rewrites a C dereference
 * of a pointer it has seen handed to a bpf_probe_read*() call (take_ids()
 * hands it a task) into another such call, at three times the cost, and
 * leaves assembly alone. */
static __always_inline __u64 typed_u64(void *object, __u64 off)
{
    __u64 v;
    asm volatile("%0 = *(u64 *)(%1 + %2)" : "=r"(v) : "r"(object), "i"(off));
    return v;
}

static __always_inline __u32 typed_u32(void *object, __u64 off)
{
    __u32 v;
    asm volatile("%0 = *(u32 *)(%1 + %2)" : "=r"(v) : "r"(object), "i"(off));
    return v;
}

static __always_inline __u8 typed_u8(void *object, __u64 off)
{
    __u8 v;
    asm volatile("%0 = *(u8 *)(%1 + %2)" : "=r"(v) : "r"(object), "i"(off));
    return v;
}

#endif
