/* Block I/O layouts shared by block_io.bpf.c, its users (delay.bpf.c,
 * biosnoop.bpf.c) and the user side (src/block/, src/delay/collector.cpp). */
#ifndef KDELAY_BLOCK_ABI_H
#define KDELAY_BLOCK_ABI_H

#define KD_BIO_COMM_LEN 16

/* A request in flight, by device (MKDEV: major << 20 | minor) and sector. */
struct kd_bio_key {
    __u32 dev;
    __u32 pad;
    __u64 sector;
};

struct kd_bio_start {
    __u64 start_ns;  /* block_io_start (or block_rq_insert): OS queue time begins */
    __u64 issue_ns;  /* block_rq_issue: handed to the device */
    __u32 pid;       /* the issuer, taken at start, not at completion */
    __u32 tid;
    char comm[KD_BIO_COMM_LEN];
};

/* Operation letters: R read, W write, F flush, D discard, O other. */
struct kd_bio_event {
    __u64 ts;        /* completion, CLOCK_MONOTONIC */
    __u64 sector;
    __u64 queue_ns;  /* start -> issue; 0 when the issue was not seen */
    __u64 device_ns; /* issue -> completion (start -> completion without an issue) */
    __u32 pid;
    __u32 tid;
    __u32 dev;
    __u32 bytes;
    char op;
    char comm[KD_BIO_COMM_LEN];
};

#endif
