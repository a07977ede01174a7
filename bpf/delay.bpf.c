/* kdelay's delay mode: per-thread kernel delay accounting for one process.
 *
 * The program is this file's hooks, each concern a part of its own, then
 * the plug-in sections' parts (delay/sections/, one each, appended by
 * src/delay/program.cpp from the section registry). Every part includes
 * what it uses and says itself when it is on (#if on kd_config.h), so the
 * order below is only the order of the report's concerns.
 */
#include "delay/syscalls.bpf.c"
#include "delay/sched.bpf.c"
#include "delay/irq.bpf.c"
#include "delay/triggers.bpf.c"
#include "delay/block.bpf.c"
#include "delay/upcalls.bpf.c"
#include "delay/profile.bpf.h"  /* kd_profile_sample, --profile */
