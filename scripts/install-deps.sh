#!/usr/bin/env bash
# Installs the Debian packages Cairn needs that are not installed yet. Idempotent: a machine that has them all
# is left untouched and nothing is fetched.
set -euo pipefail

# Build and run time: one line per native library (see ../shared/docs/PLATFORM.md).
packages=(
  pkg-config
  libsqlite3-dev                 # storage
  libvips-dev libheif-dev        # image I/O (JPEG, PNG, WebP, HEIC)
  libturbojpeg0-dev              # lossless JPEG rotation and marker stripping
  libmicrohttpd-dev              # the loopback web server
  libsodium-dev                  # hashing (and, later, encryption)
  libdlib-dev liblapack-dev libblas-dev  # face landmarks (Smile)
  libdlib-data                   # dlib's 68-point landmark model (optional at run time; see README)
  libtesseract-dev tesseract-ocr-eng  # label reading (OCR) and its English data
  libxml2-dev libarchive-dev     # Apple Health import: streaming XML, export.zip without extracting
  libcairo2-dev libpango1.0-dev  # PDF reports (Reports), label renders (cairn-bench, tests)
  fonts-dejavu-core              # the reports' font (DejaVu Sans: Latin, Greek, Cyrillic, Hebrew, Arabic)
  fonts-noto-color-emoji         # emoji in notes, embedded in reports (without it: pango's fallback glyph)
  libnotify-dev                  # reminders: freedesktop notifications over D-Bus (Notifications)
)
# Tests and benchmarks only.
test_packages=(
  libimage-exiftool-perl         # reference metadata reader the inspector is checked against
  libvips-tools                  # vipsthumbnail, the benchmark's process baseline
  tesseract-ocr                  # the tesseract command, the label benchmark's process baseline
  time                           # GNU time: the peak RSS of the benchmark's tool processes
  chromium chromium-driver       # the browser test
  fonts-liberation               # a second font family for the label benchmark's renders
  zip                            # health import tests build an export.zip
  poppler-utils                  # pdfinfo, pdftotext, pdfimages, pdftoppm, pdffonts: the report tests read PDFs back
  img2pdf                        # the reports benchmark's baseline (the same JPEGs in a bare PDF)
  dbus python3-dbusmock          # reminders: a private session bus with a mock notification daemon
)

want=("${packages[@]}")
if [ "${1:-}" = "--with-test-tools" ]; then want+=("${test_packages[@]}"); fi

missing=()
for p in "${want[@]}"; do
  status=$(dpkg-query -W -f='${db:Status-Status}' "$p" 2>/dev/null || true)
  [ "$status" = "installed" ] || missing+=("$p")
done
if [ ${#missing[@]} -eq 0 ]; then
  exit 0
fi

echo "Installing missing Debian packages: ${missing[*]}"
sudo=""
if [ "$(id -u)" -ne 0 ]; then sudo="sudo"; fi
export DEBIAN_FRONTEND=noninteractive
$sudo apt-get update -qq
$sudo apt-get install -y -qq --no-install-recommends "${missing[@]}"
