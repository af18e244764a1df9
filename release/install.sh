#!/bin/sh
# Install aletheia from a release: fetch this machine's archive and the release's checksums,
# refuse the archive unless its SHA-256 matches, then put the binary, the shell completions and
# the manual pages under a prefix (~/.local by default). Nothing is installed from an archive
# that fails the check.
#
# `sh install.sh --help` (or `curl -fsSL …/install.sh | sh -s -- --help`) lists the options.
set -eu

usage() {
  cat <<'EOF'
Install aletheia from a release: the archive for this machine, checked against the release's
sha256.sum, then the binary, the shell completions and the manual pages under a prefix.

  curl -fsSL https://github.com/aletheia-mem/aletheia/releases/latest/download/install.sh | sh
  curl -fsSL .../install.sh | sh -s -- --prefix /usr/local
  sh install.sh --from ./downloads       (a folder holding the release's files)
  sh install.sh                          (run beside the release's files: uses them)

Options (or their environment variables):
  --from URL|DIR     where the release's files are           ALETHEIA_RELEASE_URL
                     (default: the latest release on GitHub)
  --prefix DIR       install under DIR/bin, DIR/share        ALETHEIA_PREFIX (~/.local)
  --target TRIPLE    which archive (detected from uname)     ALETHEIA_TARGET
EOF
}

die() { printf 'aletheia install: %s\n' "$*" >&2; exit 1; }

from="${ALETHEIA_RELEASE_URL:-}"
prefix="${ALETHEIA_PREFIX:-}"
target="${ALETHEIA_TARGET:-}"
while [ $# -gt 0 ]; do
  case "$1" in
    --from) [ $# -ge 2 ] || die "--from needs a URL or a folder"; from="$2"; shift 2 ;;
    --prefix) [ $# -ge 2 ] || die "--prefix needs a folder"; prefix="$2"; shift 2 ;;
    --target) [ $# -ge 2 ] || die "--target needs a target triple"; target="$2"; shift 2 ;;
    -h|--help) usage; exit 0 ;;
    *) die "unknown option $1 (see --help)" ;;
  esac
done

if [ -z "$prefix" ]; then
  [ -n "${HOME:-}" ] || die "HOME is not set: say where to install with --prefix DIR"
  prefix="$HOME/.local"
fi
if [ -z "$from" ]; then
  # Run from a file (not piped into sh) beside the release's files: install those.
  here=""
  [ -f "$0" ] && here="$(CDPATH='' cd -- "$(dirname -- "$0")" && pwd)"
  if [ -n "$here" ] && [ -f "$here/sha256.sum" ]; then
    from="$here"
  else
    from="https://github.com/aletheia-mem/aletheia/releases/latest/download"
  fi
fi

# Fetch one file of the release into $work; on failure $why says what went wrong.
why=""
fetch() {
  case "$from" in
    http://*|https://*|file://*)
      if command -v curl >/dev/null 2>&1; then
        why="$(curl --proto '=https,http,file' -fsSL "$from/$1" -o "$work/$1" 2>&1)" || return 1
      elif command -v wget >/dev/null 2>&1; then
        why="$(wget -q "$from/$1" -O "$work/$1" 2>&1)" || { why="${why:-wget failed}"; return 1; }
      else
        die "neither curl nor wget is installed: install one, or download the release and pass --from <folder>"
      fi ;;
    *) why="no such file"; [ -f "$from/$1" ] && cp "$from/$1" "$work/$1" ;;
  esac
}

sha256() {
  if command -v sha256sum >/dev/null 2>&1; then sha256sum "$1" | cut -d' ' -f1
  elif command -v shasum >/dev/null 2>&1; then shasum -a 256 "$1" | cut -d' ' -f1
  else die "neither sha256sum nor shasum is installed: the archive cannot be checked"
  fi
}

# The archives this machine can run, best first: a static musl build runs on any Linux.
if [ -n "$target" ]; then
  candidates="$target"
else
  os="$(uname -s)"; arch="$(uname -m)"
  case "$arch" in
    x86_64|amd64) arch=x86_64 ;;
    aarch64|arm64) arch=aarch64 ;;
    *) die "no release archive for $arch: build from source with cargo install aletheia-mem" ;;
  esac
  case "$os" in
    Linux) candidates="$arch-unknown-linux-musl $arch-unknown-linux-gnu" ;;
    Darwin) candidates="$arch-apple-darwin" ;;
    *) die "no release archive for $os: build from source with cargo install aletheia-mem" ;;
  esac
fi

work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
trap 'exit 130' INT
trap 'exit 143' TERM
fetch sha256.sum || die "cannot fetch sha256.sum from $from ($why): is that the release's download address?"

# The checksum listed for a file name, exactly (lines are "<sha256> *<name>" or "<sha256>  <name>").
listed() { awk -v n="$1" '$2 == n || $2 == "*" n { print $1; exit }' "$work/sha256.sum"; }

archive=""
for t in $candidates; do
  name="aletheia-mem-$t.tar.xz"
  if [ -n "$(listed "$name")" ]; then archive="$name"; break; fi
done
[ -n "$archive" ] || die "the release at $from has no archive for $candidates"
fetch "$archive" || die "cannot fetch $archive from $from ($why)"

want="$(listed "$archive")"
got="$(sha256 "$work/$archive")"
[ "$want" = "$got" ] || die "$archive does not match its checksum (expected $want, got $got): nothing was installed; fetch it again"

tar -xJf "$work/$archive" -C "$work" || die "cannot unpack $archive (is xz installed?)"
dir="$work/${archive%.tar.xz}"
[ -x "$dir/aletheia" ] || die "$archive holds no aletheia binary"
# Run it before it replaces anything: a binary this machine cannot run installs nothing.
version="$("$dir/aletheia" --version 2>&1)" \
  || die "the binary in $archive does not run here ($version): nothing was installed; pick another with --target"
[ -x "$dir/aletheia-hook" ] || die "$archive holds no aletheia-hook binary"

# Each file goes in under a temporary name, then is renamed over the old one, so a running
# hook never sees a half-written binary.
put() {
  why="$( { mkdir -p "$(dirname "$2")" && cp "$1" "$2.new" && chmod "$3" "$2.new" && mv -f "$2.new" "$2"; } 2>&1 )" || {
    rm -f "$2.new" 2>/dev/null
    die "cannot write $2 ($(printf '%s' "$why" | tail -n 1)): choose a folder you can write with --prefix DIR"
  }
}
for f in completions/aletheia.bash completions/_aletheia completions/aletheia.fish man/aletheia.1; do
  [ -f "$dir/$f" ] || die "$archive holds no $f: nothing was installed"
done
put "$dir/aletheia" "$prefix/bin/aletheia" 755
put "$dir/aletheia-hook" "$prefix/bin/aletheia-hook" 755
put "$dir/completions/aletheia.bash" "$prefix/share/bash-completion/completions/aletheia" 644
put "$dir/completions/_aletheia" "$prefix/share/zsh/site-functions/_aletheia" 644
put "$dir/completions/aletheia.fish" "$prefix/share/fish/vendor_completions.d/aletheia.fish" 644
for page in "$dir"/man/*.1; do
  put "$page" "$prefix/share/man/man1/$(basename "$page")" 644
done

printf 'Installed %s to %s\n' "$version" "$prefix/bin/aletheia"
case ":$PATH:" in
  *":$prefix/bin:"*) ;;
  *) printf 'Add %s to your PATH.\n' "$prefix/bin" ;;
esac
printf 'Next, connect a tool: aletheia connect claude-code (or cursor, codex, gemini, windsurf, opencode, command-code)\n'

