#pragma once
// Which host API calls create dependencies (event record / stream wait / synchronize), and how their
// arguments are spelled in rocpd_arg. Shared by the rocpd reader and the writers of our collectors.
#include <cstdint>
#include <optional>
#include <string_view>

#include "model/trace.hpp"

namespace rpl::rocpd {

// The SyncKind of a HIP runtime or CUDA runtime/driver call name, or nullopt for any other call.
// Per-thread-stream and versioned variants (_ptsz, _ptds, _spt, _v2) map like their base name.
std::optional<SyncKind> classify_sync_call(std::string_view api_name);

// rocpd_arg names that carry the stream / event of such a call ("stream"; CUDA driver: "hStream").
bool is_stream_arg(std::string_view arg_name);
bool is_event_arg(std::string_view arg_name);

// Parses a handle as rocprofv3 writes argument values: "0x7f3a..." (hex), "1234" (decimal), and
// "(nil)"/"nullptr"/"NULL"/"" for a null handle (0). nullopt when the text is not a handle.
std::optional<uint64_t> parse_handle(std::string_view text);

}  // namespace rpl::rocpd
