# Shared by ./standby and ./bench: finds a JDK >= 21 by itself.
# shellcheck shell=bash

# Sets java_major_found to the major version of the java at $1 (empty when unknown). A JDK's release file
# names its version without starting a JVM (which costs a good part of a second), and it is read with bash
# alone: ./standby runs this at every call, where each process started costs milliseconds.
read_java_major() {
  local version="" home="$1" line
  java_major_found=""
  # Only a link needs resolving (/usr/bin/java -> /etc/alternatives/java -> the JDK's): a JDK's own bin/java
  # finds its release file two levels up, through any linked directory.
  if [ -L "$home" ]; then
    home="$(readlink -f "$home")"
  fi
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
    1.*) version="${version#1.}"; java_major_found="${version%%.*}" ;;
    *) java_major_found="${version%%[.+-]*}" ;;
  esac
}

java_major() {
  read_java_major "$1" && echo "$java_major_found"
}

# Sets java_found (and java_major_found) to the first JDK >= 21 among $STANDBY_JAVA, $JAVA_HOME, java on the PATH
# and the usual install locations. No subshell for the first two: ./standby runs this at every call.
locate_java() {
  local candidate
  for candidate in "${STANDBY_JAVA:-}" "${JAVA_HOME:+$JAVA_HOME/bin/java}"; do
    usable_java "$candidate" && return 0
  done
  for candidate in "$(command -v java || true)" \
      /usr/lib/jvm/*/bin/java /usr/java/*/bin/java /opt/java/*/bin/java \
      /Library/Java/JavaVirtualMachines/*/Contents/Home/bin/java "$HOME"/.sdkman/candidates/java/*/bin/java; do
    usable_java "$candidate" && return 0
  done
  return 1
}

usable_java() {
  [ -n "$1" ] && [ -x "$1" ] || return 1
  read_java_major "$1" 2>/dev/null || return 1
  if [[ "$java_major_found" =~ ^[0-9]+$ ]] && [ "$java_major_found" -ge 21 ]; then
    java_found="$1"
    return 0
  fi
  return 1
}

find_java() {
  locate_java && echo "$java_found"
}
