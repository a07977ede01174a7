// A one-line live status on the terminal while kdelay waits or samples.
// Drawn on stderr, and only when both stdout and stderr are terminals, so
// it never mixes into a report that goes to a file or a pipe.
#pragma once

#include <string>

namespace kdelay {

class StatusLine {
public:
    StatusLine();  // enabled when stdout and stderr are TTYs
    ~StatusLine();

    bool enabled() const { return enabled_; }
    // Replaces the line's text.
    void show(const std::string& text);
    // Removes the line (before report output is written).
    void clear();

private:
    bool enabled_;
    bool shown_ = false;
};

}  // namespace kdelay
