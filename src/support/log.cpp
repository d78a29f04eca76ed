#include "support/log.hpp"

#include <atomic>

namespace rpl::log {
namespace {
std::atomic<Level> g_level{Level::Info};
}
void set_level(Level l) { g_level = l; }
Level level() { return g_level; }
}  // namespace rpl::log
