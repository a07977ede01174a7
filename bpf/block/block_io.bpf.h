/* Block I/O start and issue, shared by the delay program's block part and
 * biosnoop. The includer defines bio_wanted(), which says whose I/O to
 * track, and its own kd_block_complete(). Offsets come from BTF through
 * kd_config.h; WITH_BLOCK is off on a kernel without the layout read. */
#ifndef KD_BLOCK_IO_BPF_H
#define KD_BLOCK_IO_BPF_H

#include "kd_config.h"
#include "block_abi.h"
#include "kd_config_names.h"

KD_REQUIRE_CONFIG(KD_BLOCK_CONFIG)
KD_REQUIRE_OFFSETS(KD_BLOCK_OFFSETS)
KD_REQUIRE_OFFSETS(KD_BIO_OFFSETS)

#if WITH_BLOCK
#define KD_REQ_OP_MASK 0xff

static __always_inline int bio_wanted(__u64 pid_tgid, __u32 dev);

BPF_HASH(bio_start, struct kd_bio_key, struct kd_bio_start, MAX_BIOS);
BPF_PERCPU_ARRAY(bio_lost, __u64, 1);  /* starts lost to a full bio_start */

static __always_inline __u64 kd_read_u64(void *p)
{
    __u64 v = 0;
    bpf_probe_read_kernel(&v, sizeof(v), p);
    return v;
}

static __always_inline __u32 kd_read_u32(void *p)
{
    __u32 v = 0;
    bpf_probe_read_kernel(&v, sizeof(v), p);
    return v;
}

static __always_inline __u32 gendisk_dev(void *disk)
{
    return (kd_read_u32((char *)disk + DISK_MAJOR_OFF) << 20) |
           kd_read_u32((char *)disk + DISK_MINOR_OFF);
}

static __always_inline void rq_key(void *rq, struct kd_bio_key *key)
{
    void *q = (void *)kd_read_u64((char *)rq + RQ_Q_OFF);
    key->dev = gendisk_dev((void *)kd_read_u64((char *)q + QUEUE_DISK_OFF));
    key->pad = 0;
    key->sector = kd_read_u64((char *)rq + RQ_SECTOR_OFF);
}

static __always_inline char rq_op(void *rq)
{
    switch (kd_read_u32((char *)rq + RQ_FLAGS_OFF) & KD_REQ_OP_MASK) {
    case 0: return 'R';
    case 1: return 'W';
    case 2: return 'F';
    case 3: return 'D';
    }
    return 'O';
}

/* The start record of the request that block_rq_complete (ctx) reports,
 * its key filled in, or NULL when it was not tracked. The includer's
 * kd_block_complete() starts here. */
static __always_inline struct kd_bio_start *bio_completed(struct bpf_raw_tracepoint_args *ctx, struct kd_bio_key *key)
{
    rq_key((void *)ctx->args[0], key);
    return bio_start.lookup(key);
}

/* Runs in the issuer's context: remember who it was. With keep_earlier, a
 * start already taken (at block_bio_queue) stands. */
static __always_inline int block_started(struct kd_bio_key key, int keep_earlier)
{
    __u64 id = bpf_get_current_pid_tgid();
    if (!bio_wanted(id, key.dev))
        return 0;
    if (keep_earlier && bio_start.lookup(&key))
        return 0;
    struct kd_bio_start s = {};
    s.start_ns = bpf_ktime_get_ns();
    s.pid = id >> 32;
    s.tid = (__u32)id;
    bpf_get_current_comm(&s.comm, sizeof(s.comm));
    if (bio_start.update(&key, &s) != 0) {
        int zero = 0;
        __u64 *n = bio_lost.lookup(&zero);
        if (n)
            *n += 1;
    }
    return 0;
}

int kd_block_start(struct bpf_raw_tracepoint_args *ctx)
{
    struct kd_bio_key key;
    rq_key((void *)ctx->args[0], &key);
    return block_started(key, WITH_BIO_QUEUE);
}
#if WITH_BIO_QUEUE

/* Kernels without block_io_start: a bio entering the block layer, keyed as
 * the request it becomes will be (a request's sector is its first bio's;
 * the sector is already remapped from a partition to the whole disk). */
int kd_block_bio_start(struct bpf_raw_tracepoint_args *ctx)
{
    void *bio = (void *)ctx->args[0];
    void *bdev = (void *)kd_read_u64((char *)bio + BIO_BDEV_OFF);
    struct kd_bio_key key;
    key.dev = gendisk_dev((void *)kd_read_u64((char *)bdev + BDEV_DISK_OFF));
    key.pad = 0;
    key.sector = kd_read_u64((char *)bio + BIO_SECTOR_OFF);
    return block_started(key, 0);
}
#endif

int kd_block_issue(struct bpf_raw_tracepoint_args *ctx)
{
    struct kd_bio_key key;
    rq_key((void *)ctx->args[0], &key);
    struct kd_bio_start *s = bio_start.lookup(&key);
    if (s && !s->issue_ns)
        s->issue_ns = bpf_ktime_get_ns();
    return 0;
}
#endif

#endif
