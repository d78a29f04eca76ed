#include "app/load_trace.hpp"

#include <fmt/core.h>

#include "store/rocpd_reader.hpp"
#include "support/progress.hpp"

namespace rpl::app {

Trace load_trace(const LoadOptions& options) {
  rocpd::ReadOptions read;
  read.lenient = options.lenient;
  Progress progress(options.show_progress);
  if (options.show_progress)
    read.progress = [&](std::string_view file, std::size_t rows) {
      progress.update(fmt::format("reading {}: {} rows", file, rows));
    };
  return rocpd::read_databases(options.databases, read);
}

}  // namespace rpl::app
