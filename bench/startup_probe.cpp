// startup_probe RUNS KDELAY ARGS...: starts kdelay RUNS times, measures the
// time from exec to its "# Start sampling" line, then lets it finish and
// reads its peak RSS. Prints the median start time and the largest RSS.
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>
#include <vector>

int main(int argc, char** argv)
{
    if (argc < 3) {
        fprintf(stderr, "usage: startup_probe RUNS KDELAY [ARGS...]\n");
        return 64;
    }
    const int runs = atoi(argv[1]);
    std::vector<double> starts;
    long peak_kb = 0;
    for (int r = 0; r < runs; ++r) {
        int out[2];
        if (pipe(out) != 0)
            return 71;
        const auto t0 = std::chrono::steady_clock::now();
        pid_t pid = fork();
        if (pid == 0) {
            dup2(out[1], 1);
            close(out[0]);
            execv(argv[2], argv + 2);
            _exit(127);
        }
        close(out[1]);
        std::string seen;
        char buf[4096];
        ssize_t n;
        double start_s = -1;
        while ((n = read(out[0], buf, sizeof(buf))) > 0) {
            seen.append(buf, n);
            if (start_s < 0 && seen.find("# Start sampling") != std::string::npos)
                start_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
        }
        close(out[0]);
        int status;
        struct rusage ru {};
        wait4(pid, &status, 0, &ru);
        if (start_s < 0 || !WIFEXITED(status) || WEXITSTATUS(status) != 0) {
            fprintf(stderr, "run %d failed (status %d)\n", r, status);
            return 1;
        }
        starts.push_back(start_s);
        peak_kb = std::max(peak_kb, ru.ru_maxrss);
    }
    std::sort(starts.begin(), starts.end());
    printf("startup_median_s %.3f\n", starts[starts.size() / 2]);
    printf("startup_min_s %.3f\nstartup_max_s %.3f\n", starts.front(), starts.back());
    printf("peak_rss_mb %.1f\n", peak_kb / 1024.0);
    return 0;
}
