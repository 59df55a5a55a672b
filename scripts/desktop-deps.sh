# What building Narratoria's desktop app needs on a Debian machine, installed
# when missing. Sourced by scripts/desktop.sh and scripts/e2e.sh; defines:
#
#   desktop_deps          the C tool chain, pkg-config, the WebKitGTK and D-Bus
#                         development files the Rust crates link, Node.js with
#                         npm, and ui/'s npm packages. Returns non-zero (after
#                         saying why) when something cannot be installed.
#   desktop_npm_packages DIR   installs DIR's locked npm packages unless the
#                         installed ones already match package.json and the lock.
#   desktop_node_supported VERSION   whether the UI tooling runs on that Node.
#   desktop_apt_install PACKAGE...   apt-get install (through sudo when not root).
#
# Each dependency is detected by what the build uses (a compile, pkg-config
# modules, the node and npm commands), not by a package name.
# Supported Node.js: 18.20 or newer in the 18 line, 20, and 22 or newer
# (Debian 12's own nodejs is 18.20); see docs/desktop.md.

desktop_deps_root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"

desktop_apt_install() {
  local sudo=""
  [ "$(id -u)" -ne 0 ] && sudo="sudo"
  echo "desktop-deps: apt-get install $*" >&2
  $sudo apt-get update -qq >&2 \
    && $sudo env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "$@" >&2
}

# The engines the UI's tooling declares (Vite 6: ^18 || ^20 || >=22;
# webdriverio 9.31: >=18.20): 18.20+, 20.x, 22 and newer.
desktop_node_supported() {
  local v="${1#v}" major minor
  major="${v%%.*}"
  minor="${v#*.}"; minor="${minor%%.*}"
  case "$major" in ''|*[!0-9]*) return 1 ;; esac
  case "$minor" in ''|*[!0-9]*) return 1 ;; esac
  if [ "$major" -eq 18 ]; then [ "$minor" -ge 20 ]
  elif [ "$major" -eq 20 ]; then return 0
  else [ "$major" -ge 22 ]
  fi
}

# Installs DIR's npm packages when what is installed does not match
# package.json (`npm ls`) or the lock file changed since the last install.
desktop_npm_packages() {
  local dir="$1"
  if [ -f "$dir/node_modules/.package-lock.json" ] \
    && ! [ "$dir/package-lock.json" -nt "$dir/node_modules/.package-lock.json" ] \
    && (cd "$dir" && npm ls --depth=0 >/dev/null 2>&1); then
    return 0
  fi
  echo "desktop-deps: npm packages of ${dir#"$desktop_deps_root"/}" >&2
  # `npm ci` refuses a lock file that lacks some optional per-platform
  # packages; then `npm install` installs the same locked versions for this
  # platform. It would also rewrite the tracked lock file, so the lock file
  # is put back as it was (its time too, so the next run does not reinstall).
  (cd "$dir" && {
    npm ci --no-audit --no-fund >&2 2>/dev/null || {
      local kept
      kept=$(mktemp)
      cp -p package-lock.json "$kept"
      npm install --no-audit --no-fund >&2
      local status=$?
      cp -p "$kept" package-lock.json
      rm -f "$kept"
      exit $status
    }
  })
}

desktop_deps() {
  local missing=()
  # A C compiler that can build a program (gcc plus the C library's headers).
  printf 'int main(void){return 0;}\n' | cc -x c - -o /dev/null >/dev/null 2>&1 || missing+=(build-essential)
  command -v pkg-config >/dev/null 2>&1 || missing+=(pkg-config)
  # The modules webkit2gtk-sys, javascriptcore-rs-sys, soup3-sys and the gtk
  # crates ask pkg-config for; libdbus-sys (tao's D-Bus support) wants dbus-1.
  if ! command -v pkg-config >/dev/null 2>&1 \
    || ! pkg-config --exists webkit2gtk-4.1 javascriptcoregtk-4.1 libsoup-3.0 gtk+-3.0 gdk-x11-3.0 2>/dev/null; then
    missing+=(libwebkit2gtk-4.1-dev)
  fi
  if ! command -v pkg-config >/dev/null 2>&1 || ! pkg-config --exists dbus-1 2>/dev/null; then
    missing+=(libdbus-1-dev)
  fi
  command -v node >/dev/null 2>&1 || missing+=(nodejs)
  command -v npm >/dev/null 2>&1 || missing+=(npm)
  if [ ${#missing[@]} -gt 0 ]; then
    desktop_apt_install "${missing[@]}" || {
      echo "desktop-deps: could not install ${missing[*]}" >&2
      return 1
    }
  fi

  local node_version
  node_version="$(node --version 2>/dev/null)"
  if ! desktop_node_supported "$node_version"; then
    echo "desktop-deps: Node.js ${node_version:-(not runnable)} at $(command -v node) is not supported." >&2
    echo "desktop-deps: the desktop UI's build tools need Node.js 18.20 or newer (18.20+, 20, or 22+)." >&2
    echo "desktop-deps: Debian 12's package (apt-get install nodejs npm) is 18.20; an older Node first in PATH" >&2
    echo "desktop-deps: hides it: remove that one or put a supported Node first in PATH, then run again." >&2
    return 1
  fi

  desktop_npm_packages "$desktop_deps_root/ui" || {
    echo "desktop-deps: npm could not install the packages of ui/" >&2
    return 1
  }
}
