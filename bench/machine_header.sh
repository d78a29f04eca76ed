# Sourced by the bench scripts: prints the header every raw output starts with (date, machine, command).
#   bench_header "COMMAND LINE"
bench_header() {
  echo "# $(date -u +%FT%TZ) $(nproc) cores, $(uname -r), $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //'), $(free -g | awk '/Mem:/{print $2}') GB RAM"
  echo "# command: $1 (commit $(git rev-parse --short HEAD 2>/dev/null || echo unknown))"
}
