/* The record mode's event, shared by record.bpf.c and src/record/. */
#ifndef KDELAY_RECORD_ABI_H
#define KDELAY_RECORD_ABI_H

#define KD_RECORD_MAX_ARGS 12     /* USDT probes have at most 12 arguments */
#define KD_RECORD_MAX_STRS 4
#define KD_RECORD_STR_LEN 224     /* 223 characters and the NUL */

struct kd_record {
    __u32 probe;  /* index in the probe set */
    __u32 pad;
    __u64 ints[KD_RECORD_MAX_ARGS];
    char strs[KD_RECORD_MAX_STRS][KD_RECORD_STR_LEN];
};

#endif
