package io.standby.cli;

import java.util.List;

/**
 * Ctrl-C and SIGTERM as a request to stop, for a command that cleans up and exits by itself with a code that says how
 * that went ({@code standby demo}, {@code standby node}): the JVM's own handling would run shutdown hooks and exit 130
 * or 143 whatever happened. sun.misc.Signal is the JDK's supported way to do that (module jdk.unsupported); javac warns
 * about it anyway.
 */
final class Signals {

    private Signals() {}

    static void onStop(Runnable action) {
        for (String name : List.of("INT", "TERM")) {
            sun.misc.Signal.handle(new sun.misc.Signal(name), signal -> action.run());
        }
    }
}
