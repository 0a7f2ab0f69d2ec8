package io.standby.cli;

import de.bwaldvogel.mongo.MongoBackend;
import de.bwaldvogel.mongo.MongoServer;
import java.net.InetSocketAddress;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.Callable;
import java.util.concurrent.CountDownLatch;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import picocli.CommandLine.ArgGroup;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * {@code standby mongo}: a MongoDB wire-protocol server for development and tests (mongo-java-server), persistent in a
 * directory by default.
 */
@Command(
        name = "mongo",
        footerHeading = "%nExamples:%n",
        footer = {
            "  standby mongo                              # data in ./standby-data",
            "  standby mongo --in-memory --port 27018",
            "  standby mongo --host 0.0.0.0 --data /var/lib/standby"
        },
        description = {
            "Runs an embedded MongoDB-compatible server until Ctrl-C or SIGTERM.",
            "mongo-java-server, for development and demos: a single server, no replication, no change streams."
        })
final class MongoCommand implements Callable<Integer> {

    private static final Logger log = LoggerFactory.getLogger(MongoCommand.class);

    @Option(
            names = "--host",
            defaultValue = "127.0.0.1",
            paramLabel = "HOST",
            description = "Address to listen on (default: ${DEFAULT-VALUE}).")
    String host;

    @Option(
            names = "--port",
            defaultValue = "27017",
            paramLabel = "PORT",
            description = "Port to listen on (default: ${DEFAULT-VALUE}).")
    int port;

    @ArgGroup(exclusive = true)
    Storage storage = new Storage();

    static final class Storage {
        @Option(
                names = "--data",
                paramLabel = "DIR",
                description = "Directory of the data file (default: ./standby-data).")
        Path data;

        @Option(names = "--in-memory", description = "Keep everything in memory; gone when the server stops.")
        boolean inMemory;
    }

    @Override
    public Integer call() throws Exception {
        if (port < 1 || port > 65535) {
            throw Flags.invalid("invalid --port " + port + ": expected 1-65535");
        }
        Path dataDir = storage.inMemory ? null : (storage.data != null ? storage.data : Path.of("standby-data"));
        MongoBackend backend = dataDir == null ? new QuietMemoryBackend() : openFile(dataDir);
        MongoServer server = new MongoServer(backend);
        try {
            server.bind(host, port);
        } catch (Exception e) {
            // netty throws the checked BindException without declaring it
            backend.close();
            throw new IllegalStateException("cannot listen on " + host + ":" + port + ": " + rootMessage(e));
        }
        InetSocketAddress address = server.getLocalAddress();
        CountDownLatch stopped = new CountDownLatch(1);
        Runtime.getRuntime()
                .addShutdownHook(new Thread(
                        () -> {
                            log.info("Stopping the embedded MongoDB server");
                            server.shutdown();
                            stopped.countDown();
                        },
                        "standby-mongo-stop"));
        log.info(
                "Embedded MongoDB listening on {}:{} ({})",
                address.getHostString(),
                address.getPort(),
                dataDir == null
                        ? "in memory"
                        : "data in " + dataDir.toAbsolutePath().normalize());
        if (dataDir != null) {
            log.info("Every acknowledged write is committed and fsynced before its reply: it survives a killed server,"
                    + " and a power loss as far as the disk honours fsync");
        }
        log.info(
                "Use it with: --mongo mongodb://{}:{}  (or export STANDBY_MONGO_URI=mongodb://{}:{})",
                address.getHostString(),
                address.getPort(),
                address.getHostString(),
                address.getPort());
        stopped.await();
        return 0;
    }

    private static MongoBackend openFile(Path dir) {
        try {
            Files.createDirectories(dir);
        } catch (Exception e) {
            throw Flags.invalid("invalid --data '" + dir + "': " + rootMessage(e));
        }
        Path file = dir.resolve("standby.mv");
        try {
            return DurableH2Backend.open(file);
        } catch (RuntimeException e) {
            throw new IllegalStateException("cannot open the data file " + file + ": " + rootMessage(e)
                    + " (is another 'standby mongo' using --data " + dir + "?)");
        }
    }

    static String rootMessage(Throwable e) {
        Throwable root = e;
        while (root.getCause() != null && root.getCause() != root) {
            root = root.getCause();
        }
        String message =
                root.getMessage() != null ? root.getMessage() : root.getClass().getSimpleName();
        int newline = message.indexOf('\n');
        return newline < 0 ? message : message.substring(0, newline);
    }
}
