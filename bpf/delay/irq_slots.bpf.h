/* Per CPU, the interrupt handler that runs there on behalf of a thread of
 * the target: a handler runs to completion on the CPU it entered. */
#ifndef KD_DELAY_IRQ_SLOTS_BPF_H
#define KD_DELAY_IRQ_SLOTS_BPF_H

#include "delay/core.bpf.h"

BPF_PERCPU_ARRAY(hardirq_slot, struct kd_irq_slot, 1);
BPF_PERCPU_ARRAY(softirq_slot, struct kd_irq_slot, 1);

/* This CPU's slot for a hard (1) or soft (0) interrupt handler. */
static __always_inline struct kd_irq_slot *irq_slot(int hard)
{
    int zero = 0;
    return hard ? hardirq_slot.lookup(&zero) : softirq_slot.lookup(&zero);
}

#endif
