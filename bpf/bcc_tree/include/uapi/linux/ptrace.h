/* The registers a probe's context holds, as x86-64 saves them on entry to
 * the kernel: BCC's USDT argument readers and PT_REGS_* name these fields. */
#ifndef KD_BCC_TREE_PTRACE_H
#define KD_BCC_TREE_PTRACE_H

struct pt_regs {
    unsigned long r15;
    unsigned long r14;
    unsigned long r13;
    unsigned long r12;
    unsigned long bp;
    unsigned long bx;
    unsigned long r11;
    unsigned long r10;
    unsigned long r9;
    unsigned long r8;
    unsigned long ax;
    unsigned long cx;
    unsigned long dx;
    unsigned long si;
    unsigned long di;
    unsigned long orig_ax;
    unsigned long ip;
    unsigned long cs;
    unsigned long flags;
    unsigned long sp;
    unsigned long ss;
};

#endif
