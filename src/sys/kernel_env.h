// What the kernel side needs from this machine before BCC can compile.
#pragma once

#include <string>

namespace kdelay {

// The directory BCC compiles against: /lib/modules/$(uname -r)/build.
std::string kernel_build_dir();

// Throws Error(Exit::osfile) naming the fix when BCC would find no kernel
// header tree.
void require_kernel_headers();

}  // namespace kdelay
