// What the compiler sees of an assembled eBPF program: the C preprocessor's
// output, with every #if of kd_config.h decided and every macro of it
// expanded (BCC's own macros, which it does not define, stay as written).
#pragma once

#include <cstdio>
#include <fstream>
#include <iterator>
#include <stdexcept>
#include <string>
#include <unistd.h>

namespace kdtest {

// flags: cpp's own ("-Wundef -Werror": a name in an #if that nobody
// defined is an error, not a silent 0).
inline std::string preprocessed(const std::string& source, const std::string& flags = "-w")
{
    char path[] = "/tmp/kdelay-cpp-XXXXXX";
    const int fd = mkstemp(path);
    if (fd < 0)
        throw std::runtime_error("mkstemp");
    close(fd);
    std::ofstream(path) << source;
    const std::string errors = std::string(path) + ".err";
    FILE* cpp = popen(("cpp -P -undef -nostdinc " + flags + " " + path + " 2>" + errors).c_str(), "r");
    std::string out;
    char buf[65536];
    for (size_t n; cpp && (n = fread(buf, 1, sizeof buf, cpp)) > 0;)
        out.append(buf, n);
    const int status = cpp ? pclose(cpp) : -1;
    std::ifstream said(errors);
    const std::string error((std::istreambuf_iterator<char>(said)), std::istreambuf_iterator<char>());
    unlink(path);
    unlink(errors.c_str());
    if (status != 0)
        throw std::runtime_error("cpp failed on the assembled program:\n" + error.substr(0, 4000));
    return out;
}

}  // namespace kdtest
