package io.standby.bench;

import io.standby.slot.SlotTable;
import io.standby.slot.StandbyDatabase;
import io.standby.testing.ChildJvm;
import io.standby.testing.TestPorts;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

/**
 * The embedded database ({@code standby mongo}) in a process of its own on 127.0.0.1, in memory or on a data directory;
 * the latter can be restarted on its data. Or a server that is already running ({@link #shared}, a tool's
 * {@code --mongo}), which this bench neither starts nor stops.
 */
public final class Database implements AutoCloseable {

    private final Path logs;
    private final Path data;
    /** The launcher script to start the server with ({@code ./standby}), or null for this bench's class path. */
    private final Path launcher;
    /** JVM options for the launcher's server ({@code STANDBY_JAVA_OPTS}). */
    private final List<String> launcherOptions;

    private final int port;
    /** Set for a server someone else runs; null for the one this bench starts on {@link #port}. */
    private final String sharedUri;

    private ChildJvm process;
    private int starts;

    private Database(Path logs, Path data, int port) {
        this(logs, data, port, null, List.of());
    }

    private Database(Path logs, Path data, int port, Path launcher, List<String> launcherOptions) {
        this.logs = logs;
        this.data = data;
        this.launcher = launcher;
        this.launcherOptions = List.copyOf(launcherOptions);
        this.port = port;
        this.sharedUri = null;
    }

    private Database(String uri) {
        this.logs = null;
        this.data = null;
        this.launcher = null;
        this.launcherOptions = List.of();
        this.port = -1;
        this.sharedUri = uri;
    }

    /** In memory: gone when it stops. */
    public static Database inMemory(Path logs) {
        Database db = new Database(logs, null, TestPorts.free(1).getFirst());
        db.start();
        return db;
    }

    /**
     * In memory, started as a user starts it: {@code launcher mongo --in-memory} (the {@code ./standby} script, with
     * its own JVM options, and {@code javaOptions} in {@code STANDBY_JAVA_OPTS}).
     */
    public static Database inMemory(Path logs, Path launcher, List<String> javaOptions) {
        Database db = new Database(logs, null, TestPorts.free(1).getFirst(), launcher, javaOptions);
        db.start();
        return db;
    }

    /** On {@code data}: a restart finds everything that was acknowledged. */
    public static Database onDisk(Path logs, Path data) {
        Database db = new Database(logs, data, TestPorts.free(1).getFirst());
        db.start();
        return db;
    }

    /**
     * A server that is already running at {@code uri}: started and stopped by someone else, such as a test that runs
     * several tools on one server. The tools' databases on it must not exist yet: {@link #initSlots} refuses slots that
     * are there already.
     */
    public static Database shared(String uri) {
        return new Database(uri);
    }

    /** In memory, or on {@code uri} if it is not null ({@code --mongo}). */
    public static Database inMemoryOr(String uri, Path logs) {
        return uri == null ? inMemory(logs) : shared(uri);
    }

    public String uri() {
        return sharedUri != null ? sharedUri : "mongodb://127.0.0.1:" + port;
    }

    /** A client of the bench itself, on database {@code name}. */
    public StandbyDatabase connect(String name) {
        return StandbyDatabase.connect(uri(), name, Duration.ofSeconds(10), null);
    }

    /**
     * Creates slot-0 .. slot-(count-1) in database {@code name}. On a shared server, slots that are there already are
     * refused: they would be another run's, and mix its nodes and numbers with this one's.
     */
    public void initSlots(String name, int count) {
        try (StandbyDatabase db = connect(name)) {
            int created = new SlotTable(db).init(count);
            if (sharedUri != null && created < count) {
                throw new IllegalStateException("database " + name + " on " + sharedUri
                        + " has slots already: give the tool a server" + " of its own, or drop that database first");
            }
        }
    }

    public void start() {
        if (sharedUri != null) {
            throw new IllegalStateException("the server on " + sharedUri + " is not this bench's to start");
        }
        List<String> args = new ArrayList<>(List.of("mongo", "--host", "127.0.0.1", "--port", Integer.toString(port)));
        if (data == null) {
            args.add("--in-memory");
        } else {
            args.addAll(List.of("--data", data.toString()));
        }
        process = launcher == null
                ? Children.standby(logs, "mongo", List.of("-Xmx2g"), args)
                : Children.launcher(launcher, logs, "mongo", launcherOptions, args);
        starts++;
        long deadline = System.nanoTime() + Duration.ofSeconds(60).toNanos();
        while (true) {
            try (StandbyDatabase db = StandbyDatabase.connect(uri(), "admin", Duration.ofSeconds(2), null)) {
                db.ping();
                return;
            } catch (RuntimeException e) {
                if (!process.isAlive() || System.nanoTime() > deadline) {
                    throw new IllegalStateException("the database did not start (log: " + process.log() + ")", e);
                }
            }
            Bench.sleep(Duration.ofMillis(100));
        }
    }

    /** kill -9 and start again on the same data directory and port. */
    public void restart() {
        if (sharedUri != null) {
            throw new IllegalStateException("the server on " + sharedUri + " is not this bench's to restart");
        }
        if (data == null) {
            throw new IllegalStateException("an in-memory database cannot restart with its data");
        }
        process.kill9();
        start();
    }

    /** The server's process id, or -1 for a server this bench did not start. */
    public long pid() {
        return process == null ? -1 : process.pid();
    }

    public int starts() {
        return starts;
    }

    @Override
    public void close() {
        if (process != null) {
            if (launcher != null && process.isAlive()) {
                // SIGTERM first: a profiler in the server (--mongo-java-option) writes its file at exit.
                try {
                    process.terminate(Duration.ofSeconds(30));
                } catch (RuntimeException ignored) {
                    // killed below
                }
            }
            process.close();
        }
    }
}
