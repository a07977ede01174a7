/* BCC writes LINUX_VERSION_CODE into each program's "version" section; only
 * kprobes before Linux 5.0 checked it, and kdelay needs 5.10. */
#define KERNEL_VERSION(a, b, c) (((a) << 16) + ((b) << 8) + ((c) > 255 ? 255 : (c)))
#define LINUX_VERSION_CODE KERNEL_VERSION(5, 10, 0)
