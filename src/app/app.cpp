#include "app/app.h"

#include <iostream>

#include "annotate/annotate.h"
#include "app/modes.h"
#include "app/options.h"
#include "core/error.h"
#include "delay/config.h"
#include "report/format.h"

namespace kdelay {

int reporting_errors(const std::function<int()>& run)
{
    try {
        return run();
    } catch (const Error& e) {
        std::cout.flush();
        std::cerr << "kdelay: " << printable(e.what()) << std::endl;
        return static_cast<int>(e.code());
    } catch (const std::exception& e) {
        std::cout.flush();
        std::cerr << "kdelay: internal error: " << printable(e.what()) << std::endl;
        return static_cast<int>(Exit::software);
    }
}

int run_app(int argc, const char* const* argv)
{
    return reporting_errors([&] {
        auto options = parse_options(argc, argv);
        if (!options)
            return 0;
        if (options->common.mode == CommonOptions::Mode::annotate) {
            complete_annotate_config(options->common, options->annotate);
            return run_annotate(options->annotate);
        }
        // Before libbcc is loaded: a wrong target is told at once.
        if (options->common.mode == CommonOptions::Mode::delay)
            complete_delay_config(options->common, options->delay);
        return run_bpf_mode(*options);
    });
}

}  // namespace kdelay
