package io.standby.bench;

import io.standby.slot.StandbyDatabase;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;

/**
 * One embedded database process ({@code standby mongo --in-memory}) for the bench's tests, which their tools get as
 * {@code --mongo} instead of each starting one of their own: a JVM start fewer per tool run, 2 to 3 s of a busy 2-core
 * machine. Started at the first use; stopped when the test JVM exits, by the shutdown hook of test-support's ChildJvm.
 * Every run gets it emptied first, so that each starts on a server holding nothing, as its own would.
 */
final class SharedServer {

    /** The server's own databases, which a tool never writes. */
    private static final Set<String> SYSTEM = Set.of("admin", "config", "local");

    private static Database database;

    private SharedServer() {}

    /** The server's URI, after every database on it but the server's own was dropped. */
    static synchronized String emptied() {
        if (database == null) {
            database = Database.inMemory(Bench.runDirectory("tests-mongo"));
        }
        try (StandbyDatabase admin = database.connect("admin")) {
            List<String> names = admin.client().listDatabaseNames().into(new ArrayList<>());
            names.stream()
                    .filter(name -> !SYSTEM.contains(name))
                    .forEach(name -> admin.client().getDatabase(name).drop());
        }
        return database.uri();
    }
}
