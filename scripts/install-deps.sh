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
  libjpeg62-turbo-dev            # libjpeg's scanline API: large photos turned in bands (JPEGShim)
  libmicrohttpd-dev              # the loopback web server
  libgnutls28-dev                # the phone session's certificate, made in-process (PhoneLink)
  libqrencode-dev                # the phone session's QR code (PhoneLink)
  libzbar-dev                    # barcodes read from a photo (Barcodes: the label database)
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
  sqlite3 wrk                    # the process benchmark's anchors: a bare read of the vault, HTTP load
  python3-pip                    # fetches the axe-core wheel below
  dbus python3-dbusmock          # reminders: a private session bus with a mock notification daemon
  desktop-file-utils             # desktop-file-validate checks the desktop entry `make install` writes
  zbar-tools                     # zbarimg reads the phone session's QR code back, as a phone's camera would
)

want=("${packages[@]}")
if [ "${1:-}" = "--with-test-tools" ]; then want+=("${test_packages[@]}"); fi

missing=()
for p in "${want[@]}"; do
  status=$(dpkg-query -W -f='${db:Status-Status}' "$p" 2>/dev/null || true)
  [ "$status" = "installed" ] || missing+=("$p")
done
if [ ${#missing[@]} -ne 0 ]; then
  echo "Installing missing Debian packages: ${missing[*]}"
  sudo=""
  if [ "$(id -u)" -ne 0 ]; then sudo="sudo"; fi
  export DEBIAN_FRONTEND=noninteractive
  $sudo apt-get update -qq
  $sudo apt-get install -y -qq --no-install-recommends "${missing[@]}"
fi

# Test tools from PyPI: axe-core (the browser tests' accessibility audit) is the axe.min.js shipped in the
# axe-playwright-python wheel. Downloaded once, checked against its hash, and unpacked to the path the browser
# tests read (Tests/BrowserTests/PageAudit.swift); nothing is installed into Python.
if [ "${1:-}" = "--with-test-tools" ]; then
  root="$(cd "$(dirname "$0")/.." && pwd)"
  axe_dir="$root/.build/test-tools"
  axe_wheel="axe_playwright_python-0.1.8-py3-none-any.whl"      # axe-core 4.12.1
  axe_sha256="fdd263c998388f1a8e67cad02677e612d946248bd44d163be5e8650ea31f95f8"
  if [ ! -s "$axe_dir/axe.min.js" ]; then
    echo "Fetching axe-core for the browser tests ($axe_wheel from PyPI)"
    mkdir -p "$axe_dir"
    python3 -m pip download --quiet --no-deps --only-binary=:all: --dest "$axe_dir" "axe-playwright-python==0.1.8"
    echo "$axe_sha256  $axe_dir/$axe_wheel" | sha256sum --check --quiet
    python3 -c 'import sys, zipfile; open(sys.argv[2], "wb").write(zipfile.ZipFile(sys.argv[1]).read("axe_playwright_python/axe.min.js"))' \
      "$axe_dir/$axe_wheel" "$axe_dir/axe.min.js.part"
    mv "$axe_dir/axe.min.js.part" "$axe_dir/axe.min.js"
    rm -f "$axe_dir/$axe_wheel"
  fi
fi

# The FHIR export's test validates its bundle against the FHIR R4 (4.0.1) models of fhir.resources 6.4.0 from
# PyPI (6.4.0 is the last release whose models are R4; later ones are R4B/R5), with the pure-Python pydantic 1.10
# it is written for. Three pure-Python wheels, each checked against its hash and unpacked to the folder the test
# puts on PYTHONPATH (Tests/CairnAppTests/FHIRExportTests.swift); nothing is installed into Python.
if [ "${1:-}" = "--with-test-tools" ]; then
  fhir_dir="$root/.build/test-tools/fhir"
  if [ ! -s "$fhir_dir/fhir/resources/__init__.py" ]; then
    echo "Fetching fhir.resources for the FHIR export test (from PyPI)"
    fhir_wheels="$root/.build/test-tools/fhir-wheels"
    mkdir -p "$fhir_wheels" "$fhir_dir.part"
    python3 -m pip download --quiet --no-deps --only-binary=:all: --platform any --python-version 3.11 --implementation py \
      --dest "$fhir_wheels" "fhir.resources==6.4.0" "pydantic==1.10.21" "typing_extensions==4.12.2"
    ( cd "$fhir_wheels" && sha256sum --check --quiet <<'SUMS'
226ff1939078efea79a0abec0cc26aa6e3b8bf6e943e4d55a66dd7713f6988bd  fhir.resources-6.4.0-py2.py3-none-any.whl
db70c920cba9d05c69ad4a9e7f8e9e83011abb2c6490e561de9ae24aee44925c  pydantic-1.10.21-py3-none-any.whl
04e5ca0351e0f3f85c6853954072df659d0d13fac324d0072316b67d7794700d  typing_extensions-4.12.2-py3-none-any.whl
SUMS
    )
    for wheel in "$fhir_wheels"/*.whl; do
      python3 -c 'import sys, zipfile; zipfile.ZipFile(sys.argv[1]).extractall(sys.argv[2])' "$wheel" "$fhir_dir.part"
    done
    rm -rf "$fhir_dir" "$fhir_wheels"
    mv "$fhir_dir.part" "$fhir_dir"
  fi
fi
