/* kdelay record: one ring buffer record per USDT probe hit, with the
 * probe's arguments. BCC reads a USDT argument only in the function
 * attached to the probe, so each probe's function is generated from the
 * probe set (record/probe.c.mustache, by src/record/recorder.cpp) and
 * follows this file. */
#include "kd_config.h"
#include "record_abi.h"
#include "kd_config_names.h"

KD_REQUIRE_CONFIG(KD_RECORD_CONFIG)

BPF_RINGBUF_OUTPUT(records, RINGBUF_PAGES);
BPF_PERCPU_ARRAY(records_lost, __u64, 1);

static __always_inline struct kd_record *record_start(__u32 probe)
{
    struct kd_record *r = records.ringbuf_reserve(sizeof(struct kd_record));
    if (!r) {
        int zero = 0;
        __u64 *n = records_lost.lookup(&zero);
        if (n)
            *n += 1;
        return 0;
    }
    r->probe = probe;
    return r;
}
