#!/usr/bin/env bash
# libpng built from a pinned source, position-independent and static, for linking into the wheel's native library
# (setup.py's JITVISION_PNG_STATIC=DIR): `tools/build_libpng.sh DIR` writes DIR/libpng16.a and DIR/include.
# The source is Debian 12's libpng 1.6.39 (the upstream tarball, checked by its SHA-256, with the patches of Debian 12's
# current revision, security fixes included), fetched with `apt-get source` from the deb-src form of this machine's
# own apt sources (a private list and state folder: the system's apt configuration is left as it is). It is the
# libpng the decode was tested bit-identical to torchvision.io with. Debian's own libpng16.a cannot be used: it is compiled as
# position-dependent code (PIE), which does not link into a shared library. The SSE2 filters are on, as upstream's
# configure turns them on for x86-64. zlib stays dynamic (libz.so.1, which every manylinux system has).
set -euo pipefail
out=$(realpath -m "${1:?usage: tools/build_libpng.sh DIR}")
version=1.6.39
sha256=a00e9d2f2f664186e4202db9299397f851aea71b36a35e74910b8820e380d441
if [ -f "$out/libpng16.a" ] && [ "$(head -c 6 "$out/VERSION" 2>/dev/null)" = "$version" ]; then
    echo "tools/build_libpng.sh: $out/libpng16.a is libpng $version already"; exit 0
fi
rm -rf "$out" && mkdir -p "$out/include" "$out/obj" "$out/apt/lists/partial" "$out/apt/parts"
sed 's/^Types: deb$/Types: deb-src/' /etc/apt/sources.list.d/*.sources > "$out/apt/parts/src.sources"
apt_options=(-o "Dir::Etc::SourceParts=$out/apt/parts" -o Dir::Etc::SourceList=/dev/null
             -o "Dir::State::Lists=$out/apt/lists" -qq)
apt-get "${apt_options[@]}" update
(cd "$out/apt" && apt-get "${apt_options[@]}" source --download-only "libpng1.6/bookworm" 2>/dev/null)
tarball="$out/apt/libpng1.6_$version.orig.tar.gz"
echo "$sha256  $tarball" | sha256sum -c --quiet
tar -xzf "$tarball" -C "$out"
src="$out/libpng-$version"
revision=$(basename "$(ls "$out"/apt/libpng1.6_"$version"-*.debian.tar.xz)" .debian.tar.xz)
tar -xJf "$out/apt/$revision.debian.tar.xz" -C "$src"
if [ -f "$src/debian/patches/series" ]; then
    grep -v '^#' "$src/debian/patches/series" | while read -r patch; do
        [ -n "$patch" ] && patch -s -p1 -d "$src" < "$src/debian/patches/$patch"
    done
fi
cp "$src/scripts/pnglibconf.h.prebuilt" "$src/pnglibconf.h"
sources=(png pngerror pngget pngmem pngpread pngread pngrio pngrtran pngrutil pngset pngtrans pngwio pngwrite
         pngwtran pngwutil intel/intel_init intel/filter_sse2_intrinsics)
pids=()
for s in "${sources[@]}"; do
    ${CC:-cc} -c -O2 -fPIC -fvisibility=hidden -DPNG_INTEL_SSE_OPT=1 -I"$src" "$src/$s.c" \
        -o "$out/obj/$(basename "$s").o" & pids+=($!)
done
for p in "${pids[@]}"; do wait "$p"; done
ar rcs "$out/libpng16.a" "$out"/obj/*.o
cp "$src/png.h" "$src/pngconf.h" "$src/pnglibconf.h" "$out/include/"
cp "$src/LICENSE" "$out/LICENSE"
rm -rf "$out/obj" "$src" "$out/apt"
echo "$version $revision" > "$out/VERSION"
echo "tools/build_libpng.sh: libpng $version ($revision) into $out/libpng16.a"
