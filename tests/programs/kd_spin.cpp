// One thread named NAME, busy on CPU CPU until killed: the spinner of the
// CPU limit tests, which put it in a cgroup of their own.
//
//   kd_spin CPU NAME    prints "spinning PID" once it runs
#include <cstdio>
#include <cstdlib>
#include <sys/prctl.h>
#include <unistd.h>

#include "pin_cpu.h"

int main(int argc, char** argv)
{
    if (argc != 3) {
        fprintf(stderr, "usage: kd_spin CPU NAME\n");
        return 64;
    }
    pin_to_cpu(atoi(argv[1]));
    prctl(PR_SET_NAME, argv[2]);
    printf("spinning %d\n", getpid());
    fflush(stdout);
    for (volatile unsigned long n = 0;; n = n + 1) {
    }
}
