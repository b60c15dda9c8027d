#!/usr/bin/env bash
# The Python package in CI: a fresh virtual environment, `pip install ./python` with
# no network (setuptools from the system: --system-site-packages, --no-build-isolation,
# --no-index), then its pytest tests against the build's libcuscope.so. Exits non-zero
# on any failure, and when pytest finds no test (its exit code 5).
# Needs python3-venv, python3-pytest, python3-setuptools and python3-wheel (scripts/deps.sh)
# and a built libcuscope.so ($BUILD/lib, BUILD=build by default; scripts/build.sh).
set -euo pipefail
cd "$(dirname "$0")/.."
REPO=$PWD
BUILD=${BUILD:-build}
LIB="$REPO/$BUILD/lib/libcuscope.so"
[ -f "$LIB" ] || { echo "python_test: $LIB is missing; build first (scripts/build.sh)" >&2; exit 1; }
# Debian's python3, whose site-packages hold python3-pytest (not a pyenv or conda one).
PY=${PYTHON:-python3}
[ -z "${PYTHON:-}" ] && [ -x /usr/bin/python3 ] && PY=/usr/bin/python3

WORK=$(mktemp -d)
trap 'rm -rf "$WORK"' EXIT
VENV="$WORK/venv"
"$PY" -m venv --system-site-packages "$VENV" ||
  { echo "python_test: '$PY -m venv' failed; install python3-venv (scripts/deps.sh)" >&2; exit 1; }
VPY="$VENV/bin/python"
"$VPY" -c "import setuptools, wheel, pytest" 2>/dev/null ||
  { echo "python_test: the venv lacks setuptools, wheel or pytest; install python3-setuptools" \
         "python3-wheel python3-pytest (scripts/deps.sh)" >&2; exit 1; }

export PIP_NO_INDEX=1 PIP_DISABLE_PIP_VERSION_CHECK=1 PIP_ROOT_USER_ACTION=ignore
"$VPY" -m pip install -q --no-index --no-build-isolation --no-deps ./python

# The installed package, not the source folder; and libcuscope.so found beside it.
cd "$WORK"
PKG=$(env -u CUSCOPE_LIBRARY "$VPY" -c 'import cuscope, os; print(os.path.dirname(cuscope.__file__))')
case "$PKG" in "$VENV"/*) ;; *) echo "python_test: cuscope imported from $PKG, not the venv" >&2; exit 1;; esac
if env -u CUSCOPE_LIBRARY "$VPY" -c 'import cuscope; cuscope.library()' 2>/dev/null; then
  echo "python_test: a library was found with neither CUSCOPE_LIBRARY nor a copy beside the package" >&2
  exit 1
fi
cp "$LIB" "$PKG/libcuscope.so"
env -u CUSCOPE_LIBRARY "$VPY" -c \
  'import cuscope, os; p = cuscope.library().path; assert os.path.dirname(p) == os.path.dirname(cuscope.__file__), p; print("python_test: cuscope", cuscope.version(), "from", p)'
rm "$PKG/libcuscope.so"

rc=0
CUSCOPE_LIBRARY="$LIB" CUSCOPE_TEST_REQUIRE_LIBRARY=1 \
  "$VPY" -m pytest -q -rs -p no:cacheprovider "$REPO/python/tests" || rc=$?
if [ "$rc" -eq 5 ]; then
  echo "python_test: pytest collected no tests" >&2
  exit 1
fi
exit "$rc"
