#include "report/status_line.h"

#include <cstdio>
#include <unistd.h>

namespace kdelay {

StatusLine::StatusLine() : enabled_(isatty(STDOUT_FILENO) && isatty(STDERR_FILENO)) {}

StatusLine::~StatusLine() { clear(); }

void StatusLine::show(const std::string& text)
{
    if (!enabled_)
        return;
    fflush(stdout);
    // \r and "erase line", then the text; no newline, so the next show replaces it.
    fprintf(stderr, "\r\033[K%s", text.c_str());
    fflush(stderr);
    shown_ = true;
}

void StatusLine::clear()
{
    if (!shown_)
        return;
    fprintf(stderr, "\r\033[K");
    fflush(stderr);
    shown_ = false;
}

}  // namespace kdelay
