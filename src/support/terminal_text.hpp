#pragma once
// Text from inputs (kernel names, file names, corrupt bytes echoed in errors) must not drive the terminal:
// an ESC, BEL or CR in a kernel name could set the window title, clear the screen or overwrite a line.
// terminal_safe() writes every control character as a visible escape (\x1b, \x0d, ...).
#include <cstdio>
#include <string>
#include <string_view>

namespace rpl {

// Keeps newline and tab; replaces C0 controls, DEL, and the C1 controls U+0080..U+009F (UTF-8 C2 80..C2 9F)
// with \xNN / \u00NN text.
std::string terminal_safe(std::string_view text);

// The same, newline and tab included: text from an input (a kernel name) shown on one line of a table, where
// a newline or tab would forge a line or shift the columns.
std::string one_line(std::string_view text);

// The width of the terminal on `fd` (TIOCGWINSZ), else $COLUMNS when it is a number, else 0 (unknown).
std::size_t terminal_columns(int fd);

// Makes `stderr` a stream that passes everything through terminal_safe() to file descriptor 2, so that no
// log line, warning or error message can carry a control character from an input (rocm-perf's main calls
// it first). Idempotent.
void make_stderr_terminal_safe();

// The original stderr, for the progress line's own "\r\033[K" (its message still goes through
// terminal_safe()).
std::FILE* raw_stderr();

}  // namespace rpl
