#pragma once
// Shared by the libFuzzer targets: a scratch folder on tmpfs, the whole `analyze` pipeline as the CLI runs
// it, and the assertion that a run which succeeds wrote outputs that validate against their schemas.
// Findings abort (libFuzzer then saves the input): a crash or sanitizer report, an exception other than
// rpl::Error (the CLI would exit 1, "internal error"), or a schema violation.
#include <cstddef>
#include <cstdint>
#include <functional>
#include <string>

namespace rpl::fuzz {

// A private folder for this process under $RPL_FUZZ_SCRATCH, /dev/shm or $TMPDIR, removed at exit.
const std::string& scratch_dir();
void write_bytes(const std::string& path, const uint8_t* data, std::size_t size);

// Runs `body`; rpl::Error is an expected outcome (bad input, with its exit code); anything else aborts.
void expect_only_rpl_errors(const std::function<void()>& body);

// analyze on `databases` with what-if and HTML, as `rocm-perf analyze -o DIR --what-if ...` does; when it
// succeeds, every JSON output must validate against its schema.
void analyze_and_check(const std::string& database);

// Aborts with the message when `json_text` does not validate against schemas/<schema>.schema.json.
void check_schema(const std::string& schema, const std::string& json_text, const std::string& what);

}  // namespace rpl::fuzz
