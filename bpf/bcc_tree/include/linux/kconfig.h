/* Included first by BCC. No kernel configuration: kdelay's programs read
 * the running kernel's layout from BTF. BCC's helpers refuse to build
 * without CONFIG_BPF_SYSCALL. */
#define CONFIG_BPF_SYSCALL 1
#define __always_inline inline __attribute__((always_inline))
