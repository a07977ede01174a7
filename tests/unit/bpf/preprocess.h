// What the compiler sees of an assembled eBPF program: the C preprocessor's
// output, with every #if of kd_config.h decided and every macro of it
// expanded (BCC's own macros, which it does not define, stay as written).
#pragma once

#include <cstdio>
#include <fstream>
#include <stdexcept>
#include <string>
#include <unistd.h>

namespace kdtest {

inline std::string preprocessed(const std::string& source)
{
    char path[] = "/tmp/kdelay-cpp-XXXXXX";
    const int fd = mkstemp(path);
    if (fd < 0)
        throw std::runtime_error("mkstemp");
    close(fd);
    std::ofstream(path) << source;
    FILE* cpp = popen((std::string("cpp -P -w -undef -nostdinc ") + path).c_str(), "r");
    std::string out;
    char buf[65536];
    for (size_t n; cpp && (n = fread(buf, 1, sizeof buf, cpp)) > 0;)
        out.append(buf, n);
    const int status = cpp ? pclose(cpp) : -1;
    unlink(path);
    if (status != 0)
        throw std::runtime_error("cpp failed on the assembled program");
    return out;
}

}  // namespace kdtest
