#include "store/sync_calls.hpp"

#include <charconv>

namespace rpl::rocpd {

namespace {

struct NamedKind {
  std::string_view name;
  SyncKind kind;
};

constexpr NamedKind kSyncCalls[] = {
    {"hipEventRecord", SyncKind::EventRecord},
    {"hipEventRecordWithFlags", SyncKind::EventRecord},
    {"cudaEventRecord", SyncKind::EventRecord},
    {"cudaEventRecordWithFlags", SyncKind::EventRecord},
    {"cuEventRecord", SyncKind::EventRecord},
    {"cuEventRecordWithFlags", SyncKind::EventRecord},
    {"hipStreamWaitEvent", SyncKind::StreamWaitEvent},
    {"cudaStreamWaitEvent", SyncKind::StreamWaitEvent},
    {"cuStreamWaitEvent", SyncKind::StreamWaitEvent},
    {"hipStreamSynchronize", SyncKind::StreamSynchronize},
    {"cudaStreamSynchronize", SyncKind::StreamSynchronize},
    {"cuStreamSynchronize", SyncKind::StreamSynchronize},
    {"hipEventSynchronize", SyncKind::EventSynchronize},
    {"cudaEventSynchronize", SyncKind::EventSynchronize},
    {"cuEventSynchronize", SyncKind::EventSynchronize},
    {"hipDeviceSynchronize", SyncKind::DeviceSynchronize},
    {"hipCtxSynchronize", SyncKind::DeviceSynchronize},
    {"cudaDeviceSynchronize", SyncKind::DeviceSynchronize},
    {"cudaThreadSynchronize", SyncKind::DeviceSynchronize},  // deprecated alias of cudaDeviceSynchronize
    {"cuCtxSynchronize", SyncKind::DeviceSynchronize},
};

constexpr std::string_view kVariantSuffixes[] = {"_ptsz", "_ptds", "_spt", "_v2"};

std::string_view strip_variant_suffixes(std::string_view name) {
  for (bool stripped = true; stripped;) {
    stripped = false;
    for (auto suffix : kVariantSuffixes) {
      if (name.size() > suffix.size() && name.ends_with(suffix)) {
        name.remove_suffix(suffix.size());
        stripped = true;
      }
    }
  }
  return name;
}

std::string_view trim(std::string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t')) s.remove_prefix(1);
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t')) s.remove_suffix(1);
  return s;
}

}  // namespace

std::optional<SyncKind> classify_sync_call(std::string_view api_name) {
  std::string_view base = strip_variant_suffixes(api_name);
  for (const auto& call : kSyncCalls)
    if (call.name == base) return call.kind;
  return std::nullopt;
}

bool is_stream_arg(std::string_view arg_name) { return arg_name == "stream" || arg_name == "hStream"; }
bool is_event_arg(std::string_view arg_name) { return arg_name == "event" || arg_name == "hEvent"; }

std::optional<uint64_t> parse_handle(std::string_view text) {
  text = trim(text);
  if (text.empty() || text == "(nil)" || text == "nullptr" || text == "NULL" || text == "null") return 0;
  int base = 10;
  if (text.size() > 2 && text[0] == '0' && (text[1] == 'x' || text[1] == 'X')) {
    text.remove_prefix(2);
    base = 16;
  }
  uint64_t value = 0;
  auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value, base);
  if (ec != std::errc() || end != text.data() + text.size()) return std::nullopt;
  return value;
}

}  // namespace rpl::rocpd
