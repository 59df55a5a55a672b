#!/usr/bin/env bash
# The desktop app's end-to-end check, from a bare Debian machine:
#  1. installs what it needs: what the desktop build needs
#     (scripts/desktop-deps.sh: WebKitGTK's development files, Node.js with
#     npm, ui/'s npm packages), then Xvfb, WebKitWebDriver, tests/e2e/'s npm
#     packages and tauri-driver,
#  2. builds the app (`tauri build --no-bundle`: the binary with the web UI
#     embedded),
#  3. runs the shell's own tests (cargo test -p narratoria-desktop, with the
#     build's profile and features, so its dependencies are reused), then the
#     E2E suite (tests/e2e, WebdriverIO through tauri-driver) in a real window
#     under Xvfb against that binary, in English, then its play spec
#     (turn-controls) once more with the window in French (the app started
#     in the fr_FR.UTF-8 locale, generated here when missing; the specs read
#     the texts they expect from ui/src/i18n/locales),
#  4. builds the package players get (scripts/package.sh --no-gpu: the
#     release .deb from the same build, without the Vulkan backend), installs it with apt-get, opens the installed app under
#     Xvfb (tests/e2e/installed.mjs: bundled model loaded, a turn played, a
#     setting saved and kept across a restart), then removes the package
#     again unless it was installed before the run.
# Ends with the line "N passed, N failed"; exits non-zero when anything failed.
#
# Environment: CARGO_TARGET_DIR (default ~/.cache/narratoria/target);
# NARRATORIA_E2E_PROFILE=release|debug (default release: the suite and the
# installed-package check run the build players get; debug is quicker to
# build while working on the window); NARRATORIA_E2E_FEATURES=--no-default-features
# builds without the llama.cpp narrator; NARRATORIA_E2E_SKIP_DEB=1 skips the
# bundle and step 4; NARRATORIA_SCREENSHOTS_DIR is where the suite saves its
# screenshots (default $CARGO_TARGET_DIR/e2e-screenshots; set it to
# docs/screenshots to update the documentation's copies);
# NARRATORIA_E2E_SKIP_FRENCH=1 skips the French pass of step 3.
set -uo pipefail

# A relative screenshots folder is taken from where the script was started.
if [ -n "${NARRATORIA_SCREENSHOTS_DIR:-}" ]; then
  NARRATORIA_SCREENSHOTS_DIR="$(realpath -m "$NARRATORIA_SCREENSHOTS_DIR")"
fi
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$root"
export PATH="$HOME/.cargo/bin:$PATH"
export CARGO_TARGET_DIR="${CARGO_TARGET_DIR:-$HOME/.cache/narratoria/target}"
mkdir -p "$CARGO_TARGET_DIR"
export NARRATORIA_SCREENSHOTS_DIR="${NARRATORIA_SCREENSHOTS_DIR:-$CARGO_TARGET_DIR/e2e-screenshots}"
SUDO=""
[ "$(id -u)" -ne 0 ] && SUDO="sudo"

passed=0
failed=0
pass() { passed=$((passed + 1)); echo "e2e: ok - $1" >&2; }
fail() { failed=$((failed + 1)); echo "e2e: FAILED - $1" >&2; }
finish() {
  echo "$passed passed, $failed failed"
  [ "$failed" -eq 0 ]
  exit
}
step() { echo "== e2e: $*" >&2; }

# ---- 1. what the build and the window need
step "what the desktop build needs"
source "$root/scripts/desktop-deps.sh"
desktop_deps || { fail "install what the desktop build needs"; finish; }
# The window under test: a virtual display and WebKit's WebDriver, which
# tauri-driver starts.
missing=()
command -v xvfb-run >/dev/null 2>&1 && command -v Xvfb >/dev/null 2>&1 || missing+=(xvfb)
command -v xauth >/dev/null 2>&1 || missing+=(xauth)
command -v WebKitWebDriver >/dev/null 2>&1 || missing+=(webkit2gtk-driver)
# The French pass starts the app in fr_FR.UTF-8 (WebKitGTK's navigator.language
# comes from the locale): localedef makes it from the locales package's sources.
if [ "${NARRATORIA_E2E_SKIP_FRENCH:-}" != 1 ] && [ ! -e /usr/share/i18n/locales/fr_FR ]; then
  missing+=(locales)
fi
if [ ${#missing[@]} -gt 0 ]; then
  desktop_apt_install "${missing[@]}" || { fail "install ${missing[*]}"; finish; }
fi

step "models and built-in skills"
"$root/scripts/fetch-model.sh" >&2 || { fail "fetch the default model"; finish; }
need_skills=0
for s in dice-roller/scripts/roll-dice storyteller/scripts/narrate game-master/scripts/direct-turn; do
  [ -x "skills/$s" ] || need_skills=1
done
if [ "$need_skills" = 1 ] && [ -x scripts/install-skills.sh ]; then
  scripts/install-skills.sh >&2 || echo "e2e: note: the built-in skills' scripts did not all build" >&2
fi

desktop_npm_packages "$root/tests/e2e" || { fail "npm install in tests/e2e"; finish; }

if [ "${NARRATORIA_E2E_SKIP_FRENCH:-}" != 1 ] && ! locale -a 2>/dev/null | grep -qix 'fr_FR\.utf-\?8'; then
  step "localedef fr_FR.UTF-8"
  # Without it the harness shows the window in French through its stored
  # choice of language instead (tests/e2e/harness.mjs says which it used).
  $SUDO localedef -i fr_FR -c -f UTF-8 fr_FR.UTF-8 >&2 \
    || echo "e2e: note: no fr_FR.UTF-8 locale; the French pass chooses French in the window" >&2
fi

if ! command -v tauri-driver >/dev/null 2>&1; then
  step "cargo install tauri-driver"
  cargo install tauri-driver --locked >&2 || { fail "install tauri-driver"; finish; }
fi

# ---- 2. build
export TAURI_APP_PATH="$root/src-tauri" TAURI_FRONTEND_PATH="$root/ui"
profile="${NARRATORIA_E2E_PROFILE:-release}"
build_args=()
[ "$profile" = debug ] && build_args+=(--debug)
build_args+=(--no-bundle)
cargo_args=()
[ -n "${NARRATORIA_E2E_FEATURES:-}" ] && cargo_args+=(-- ${NARRATORIA_E2E_FEATURES})
started=$(date +%s)
step "tauri build ${build_args[*]} ${cargo_args[*]}"
(cd ui && npx tauri build "${build_args[@]}" "${cargo_args[@]}" >&2) && pass "build the app (${build_args[*]})" || { fail "build the app"; finish; }
echo "e2e: build took $(( $(date +%s) - started )) s" >&2
export NARRATORIA_APP="$CARGO_TARGET_DIR/$profile/narratoria-desktop"

# The shell's own tests (src-tauri is not a default member of the workspace:
# it needs WebKit). The same profile and features as the build above (which
# adds tauri/custom-protocol), so only the shell itself compiles again.
test_args=(--locked -p narratoria-desktop --features tauri/custom-protocol)
[ "$profile" = release ] && test_args+=(--release)
[ -n "${NARRATORIA_E2E_FEATURES:-}" ] && test_args+=(${NARRATORIA_E2E_FEATURES})
step "cargo test ${test_args[*]}"
started=$(date +%s)
cargo test "${test_args[@]}" >&2 && pass "the shell's own tests" || fail "the shell's own tests"
echo "e2e: the shell's tests took $(( $(date +%s) - started )) s" >&2

# ---- 3. the suite in a real window
# run_suite NAME [SPEC…]: the specs (all by default) under Xvfb; their
# passes and failures are counted.
run_suite() {
  local name="$1" tap started suite_rc p f
  shift
  [ $# -eq 0 ] && set -- specs/
  step "$name under Xvfb"
  tap="$(mktemp)"
  started=$(date +%s)
  (cd tests/e2e && xvfb-run -a -s "-screen 0 1280x860x24" \
    node --test --test-concurrency=1 --test-reporter=spec --test-reporter-destination=stderr \
    --test-reporter=tap --test-reporter-destination="$tap" "$@")
  suite_rc=$?
  echo "e2e: $name took $(( $(date +%s) - started )) s" >&2
  p=$(grep -E '^# pass ' "$tap" | awk '{print $3}')
  f=$(grep -E '^# fail ' "$tap" | awk '{print $3}')
  passed=$((passed + ${p:-0}))
  failed=$((failed + ${f:-0}))
  if [ -z "$p" ] || { [ "$suite_rc" -ne 0 ] && [ "${f:-0}" -eq 0 ]; }; then fail "$name ran (exit $suite_rc)"; fi
  rm -f "$tap"
}
NARRATORIA_E2E_LANG=en run_suite "E2E suite"
# The window in French: the play spec once more (rule-based planner, about
# a minute), its texts read from ui/src/i18n/locales/fr.json.
if [ "${NARRATORIA_E2E_SKIP_FRENCH:-}" != 1 ]; then
  NARRATORIA_E2E_LANG=fr run_suite "E2E play spec in French" specs/turn-controls.test.mjs
fi

# ---- 4. the installer
if [ "${NARRATORIA_E2E_SKIP_DEB:-}" != 1 ]; then
  step "scripts/package.sh ($profile)"
  # Without the Vulkan backend: its build and lavapipe check run when a
  # release package is built for players (docs/models.md, "GPU offload").
  package_args=(--no-gpu)
  [ "$profile" = debug ] && package_args+=(--debug)
  deb=$("$root/scripts/package.sh" "${package_args[@]}")
  if [ -z "$deb" ] || [ ! -f "$deb" ]; then
    fail "a .deb was built"
  else
    pass "a .deb was built ($(basename "$deb"), $(du -h "$deb" | cut -f1))"
    package="$(dpkg-deb -f "$deb" Package)"
    # The machine is left as it was: a package installed only for this check
    # is removed again, also when the run is interrupted.
    installed_before=0
    dpkg-query -W -f='${Status}' "$package" 2>/dev/null | grep -q "install ok installed" && installed_before=1
    remove_test_package() {
      step "apt-get remove $package"
      $SUDO env DEBIAN_FRONTEND=noninteractive apt-get remove -y -qq "$package" >&2
    }
    step "apt-get install $deb"
    [ "$installed_before" = 1 ] && echo "e2e: note: $package was installed before; this build replaces it and stays installed" >&2
    if $SUDO env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --reinstall "$deb" >&2; then
      [ "$installed_before" = 0 ] && trap 'remove_test_package >/dev/null 2>&1' EXIT
      pass "install the .deb"
      step "open the installed app under Xvfb"
      (cd tests/e2e && xvfb-run -a -s "-screen 0 1280x860x24" node installed.mjs /usr/bin/narratoria-desktop) >&2 \
        && pass "the installed app opens its window" || fail "the installed app opens its window"
      if [ "$installed_before" = 0 ]; then
        trap - EXIT
        remove_test_package && pass "remove the .deb again" || fail "remove the .deb again"
      fi
    else
      fail "install the .deb"
    fi
  fi
fi
finish
