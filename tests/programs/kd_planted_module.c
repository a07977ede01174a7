/* A stranger's kdelay-bpf.so, planted in the working directory: loaded, it
   leaves the file $KD_PLANTED_RAN behind. kdelay must never load it. */
#include <fcntl.h>
#include <stdlib.h>
#include <unistd.h>

__attribute__((constructor)) static void planted_loaded(void)
{
    const char* ran = getenv("KD_PLANTED_RAN");
    if (ran) {
        int fd = open(ran, O_CREAT | O_WRONLY, 0644);
        if (fd >= 0)
            close(fd);
    }
}

int kdelay_bpf_run(const void* options)
{
    (void)options;
    return 0;
}
