# Sourced by the staging and GPU batch scripts: which commit the staged binaries were built from, so that every
# GPU batch log can name it (a log that names only the checkout it ran in may describe other binaries).
#   write_staged_commit DEST ROOT   writes DEST/COMMIT: the full commit id of ROOT's HEAD, and a note when the
#                                   working tree had uncommitted changes (the binaries then match no commit)
#   staged_commit DIR               prints the commit recorded in DIR/COMMIT, or says that none was recorded
write_staged_commit() {
  local dest=$1 root=$2 id
  id=$(git -C "$root" rev-parse HEAD 2>/dev/null) || id="unknown (not a git checkout: $root)"
  if git -C "$root" rev-parse HEAD >/dev/null 2>&1 && ! git -C "$root" diff --quiet HEAD -- 2>/dev/null; then
    id="$id plus uncommitted changes"
  fi
  echo "$id" >"$dest/COMMIT"
}
staged_commit() {
  if [ -f "$1/COMMIT" ]; then cat "$1/COMMIT"; else echo "unknown (no COMMIT file in $1: not staged by scripts/gpu/stage_devbuild.sh)"; fi
}
