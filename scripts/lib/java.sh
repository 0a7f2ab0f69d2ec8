# Shared by ./standby and ./bench: finds a JDK >= 21 by itself.
# shellcheck shell=bash

java_major() {
  local version="" home line
  # A JDK's release file names its version without starting a JVM (which costs a good part of a second).
  # Read with bash alone: ./standby runs this on every call, where each extra process costs milliseconds.
  home="$(readlink -f "$1")"
  home="${home%/bin/java}"
  if [ -f "$home/release" ]; then
    while IFS= read -r line; do
      case "$line" in
        JAVA_VERSION=*) version="${line#JAVA_VERSION=}"; version="${version//\"/}"; break ;;
      esac
    done < "$home/release"
  fi
  if [ -z "$version" ]; then
    version="$("$1" -version 2>&1 | awk -F'"' '/version/ {print $2; exit}')" || return 1
  fi
  case "$version" in
    1.*) version="${version#1.}"; echo "${version%%.*}" ;;
    *) echo "${version%%[.+-]*}" ;;
  esac
}

find_java() {
  local candidate major
  for candidate in "${STANDBY_JAVA:-}" "${JAVA_HOME:+$JAVA_HOME/bin/java}" "$(command -v java || true)" \
      /usr/lib/jvm/*/bin/java /usr/java/*/bin/java /opt/java/*/bin/java \
      /Library/Java/JavaVirtualMachines/*/Contents/Home/bin/java "$HOME"/.sdkman/candidates/java/*/bin/java; do
    [ -n "$candidate" ] && [ -x "$candidate" ] || continue
    major="$(java_major "$candidate" 2>/dev/null || true)"
    if [[ "$major" =~ ^[0-9]+$ ]] && [ "$major" -ge 21 ]; then
      echo "$candidate"
      return 0
    fi
  done
  return 1
}
