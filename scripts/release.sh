#!/usr/bin/env bash
# Builds ctx's release binaries and the archives and npm packages that carry them.
#
#   scripts/release.sh [--tag vX.Y.Z] [--out DIR] [--binary FILE] [TARGET…]
#
# TARGETs default to the five release targets below. Each is built with `cargo zigbuild` (zig as
# the C compiler and linker: static musl binaries for Linux, Mach-O for macOS, PE for Windows,
# all from one Linux machine; `pip install cargo-zigbuild ziglang`), its standard library added
# with `rustup target add` when missing. For each target, under DIR (default target/dist):
#
#   ctx-<version>-<target>.tar.gz (.zip for Windows)  the binary, README, CHANGELOG
#   npm/<os>-<arch>/                                   the @ctxkit/<os>-<arch> package, ready to publish
#
# plus npm/ctxkit/, the ctxkit package itself (its OpenCode plugin is
# integrations/opencode/plugin/ctx.js, the file `ctx opencode install` writes). --binary FILE
# packages FILE for the one TARGET given instead of building it (the tests package a debug build
# that way). The version is Cargo.toml's; with --tag (or on a GitHub tag, GITHUB_REF_TYPE=tag) the
# tag must be v<version>, or nothing is built. A binary over 15 MB fails the build. Each binary that can run here (natively, under qemu-user, under wine) runs
# `ctx --version` and `ctx frame tree` on examples/demo; the others are named with what `file` says.
# A target that cannot be built is named, with why, and the script goes on to the others, then
# exits 1.
set -euo pipefail
cd "$(dirname "$0")/.."

ALL_TARGETS=(
  x86_64-unknown-linux-musl
  aarch64-unknown-linux-musl
  x86_64-apple-darwin
  aarch64-apple-darwin
  x86_64-pc-windows-gnu
)
# 15 MB: what ctx needs at run time is inside the binary, and it stays this small.
MAX_BYTES=15000000

tag=""
prebuilt=""
out="target/dist"
targets=()
while [ $# -gt 0 ]; do
  case "$1" in
    --tag) tag="$2"; shift 2 ;;
    --tag=*) tag="${1#--tag=}"; shift ;;
    --out) out="$2"; shift 2 ;;
    --out=*) out="${1#--out=}"; shift ;;
    --binary) prebuilt="$2"; shift 2 ;;
    --binary=*) prebuilt="${1#--binary=}"; shift ;;
    -h|--help) sed -n '2,/^set -euo/p' "$0" | sed '$d; s/^# \{0,1\}//'; exit 0 ;;
    -*) echo "error: unknown option $1" >&2; exit 2 ;;
    *) targets+=("$1"); shift ;;
  esac
done
[ ${#targets[@]} -gt 0 ] || targets=("${ALL_TARGETS[@]}")
if [ -n "$prebuilt" ] && [ ${#targets[@]} -ne 1 ]; then
  echo "error: --binary packages one file: name exactly one TARGET" >&2
  exit 2
fi
if [ -z "$tag" ] && [ "${GITHUB_REF_TYPE:-}" = tag ]; then
  tag="${GITHUB_REF_NAME:-}"
fi

version="$(sed -n 's/^version = "\(.*\)"$/\1/p' Cargo.toml | head -1)"
[ -n "$version" ] || { echo "error: no version in Cargo.toml" >&2; exit 1; }
if [ -n "$tag" ] && [ "$tag" != "v$version" ]; then
  echo "error: tag $tag does not match Cargo.toml's version $version" >&2
  echo "hint: tag v$version, or set the version in Cargo.toml and run \`cargo run -q -- generate-artifacts .\`" >&2
  exit 1
fi

# The npm name of a target's platform: <os>-<arch>, as Node's process.platform and process.arch say.
npm_platform() {
  case "$1" in
    x86_64-unknown-linux-*) echo linux-x64 ;;
    aarch64-unknown-linux-*) echo linux-arm64 ;;
    x86_64-apple-darwin) echo darwin-x64 ;;
    aarch64-apple-darwin) echo darwin-arm64 ;;
    x86_64-pc-windows-*) echo win32-x64 ;;
    *) return 1 ;;
  esac
}

mkdir -p "$out"
out="$(cd "$out" && pwd)"
rm -rf "$out/npm/ctxkit"
mkdir -p "$out/npm"
cp -R npm/ctxkit "$out/npm/ctxkit"
cp README.md "$out/npm/ctxkit/"
cp integrations/opencode/plugin/ctx.js "$out/npm/ctxkit/ctx.js"

# zig's clang makes __DATE__ an error (-Werror=date-time), which mimalloc's Windows code uses.
export CFLAGS_x86_64_pc_windows_gnu="${CFLAGS_x86_64_pc_windows_gnu:--Wno-error=date-time}"

failed=()
for target in "${targets[@]}"; do
  platform="$(npm_platform "$target")" || { echo "error: $target is not a release target" >&2; failed+=("$target (unknown)"); continue; }
  echo "== $target ($platform)"
  exe=""
  case "$target" in *windows*) exe=".exe" ;; esac
  if [ -n "$prebuilt" ]; then
    binary="$prebuilt"
  else
    if ! rustup target list --installed | grep -qx "$target"; then
      rustup target add "$target" || { failed+=("$target (rustup target add failed)"); continue; }
    fi
    start=$(date +%s)
    if ! cargo zigbuild --release --locked --target "$target"; then
      failed+=("$target (build failed)")
      continue
    fi
    echo "$target: built in $(($(date +%s) - start))s"
    binary="${CARGO_TARGET_DIR:-target}/$target/release/ctx$exe"
  fi
  bytes=$(wc -c <"$binary")
  echo "$target: $binary, $bytes bytes"
  if [ -z "$prebuilt" ] && [ "$bytes" -gt "$MAX_BYTES" ]; then
    echo "error: $binary is $bytes bytes, over the 15 MB limit (15 000 000 bytes)" >&2
    failed+=("$target (over 15 MB)")
    continue
  fi

  # Run what can run here: natively, under qemu-user (Debian's qemu-user) or wine.
  runner=none
  case "$target" in
    x86_64-unknown-linux-*) [ "$(uname -sm)" = "Linux x86_64" ] && runner="" ;;
    aarch64-unknown-linux-*) command -v qemu-aarch64 >/dev/null && runner=qemu-aarch64 ;;
    x86_64-pc-windows-*)
      wine="${WINE:-$(command -v wine || command -v wine64 || true)}"
      [ -n "$wine" ] && runner="$wine" ;;
  esac
  if [ "$runner" = none ]; then
    echo "$target: not run here ($(file -b "$binary" | cut -d, -f1))"
  elif [ -z "$prebuilt" ]; then
    shown="$($runner "$binary" --version 2>/dev/null | tr -d '\r')"
    if [ "$shown" != "ctx $version ($target)" ]; then
      echo "error: $binary --version printed: $shown" >&2
      failed+=("$target (--version)")
      continue
    fi
    if ! $runner "$binary" -C examples/demo frame tree >/dev/null; then
      failed+=("$target (frame tree on examples/demo)")
      continue
    fi
    echo "$target: ran ${runner:+under }${runner:-natively}: $shown; frame tree on examples/demo"
  fi

  name="ctx-$version-$target"
  stage="$out/$name"
  rm -rf "$stage"
  mkdir -p "$stage"
  cp "$binary" "$stage/ctx$exe"
  cp README.md CHANGELOG.md "$stage/"
  case "$target" in
    *windows*) (cd "$out" && rm -f "$name.zip" && zip -qr "$name.zip" "$name") ;;
    *) tar -C "$out" -czf "$out/$name.tar.gz" "$name" ;;
  esac
  rm -rf "$stage"

  package="$out/npm/$platform"
  rm -rf "$package"
  mkdir -p "$package/bin"
  cp "npm/platforms/$platform/package.json" "$package/"
  cp "$binary" "$package/bin/ctx$exe"
  chmod 755 "$package/bin/ctx$exe"
done

echo "== $out"
ls -l "$out" | sed 1d
if [ ${#failed[@]} -gt 0 ]; then
  printf 'error: not built: %s\n' "${failed[@]}" >&2
  exit 1
fi
