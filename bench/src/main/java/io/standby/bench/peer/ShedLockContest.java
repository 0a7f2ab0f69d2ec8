package io.standby.bench.peer;

import io.standby.bench.Children;
import io.standby.bench.Database;
import io.standby.bench.Waits;
import io.standby.slot.StandbyDatabase;
import io.standby.testing.ChildJvm;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Date;
import java.util.List;
import org.bson.Document;

/**
 * Two {@link ShedLockJob} processes competing for the lock {@code slot-0}. Who holds it comes from the jobs' own lines:
 * ShedLock writes the host name as {@code lockedBy}, the same for both. A new holder shows in the database as a new
 * {@code lockedAt} (an extend changes only {@code lockUntil}).
 */
final class ShedLockContest implements Contest {

    static final String LOCK = "slot-0";

    private final Path dir;
    private final Database database;
    private final String dbName;
    private final String variant;
    private final Duration retry;
    private final List<ChildJvm> jobs = new ArrayList<>();
    private StandbyDatabase admin;
    private int started;

    ShedLockContest(Path dir, Database database, String dbName, String variant, Duration retry) {
        this.dir = dir;
        this.database = database;
        this.dbName = dbName;
        this.variant = variant;
        this.retry = retry;
    }

    private boolean keepAlive() {
        return variant.equals("keepalive");
    }

    @Override
    public String name() {
        return keepAlive() ? "shedlock keepalive" : "shedlock extend 1s/3s";
    }

    @Override
    public String settings() {
        return keepAlive()
                ? "KeepAliveLockProvider(MongoLockProvider), lockAtMostFor 30s (its minimum; extends every 15s), "
                        + "lockAtLeastFor 0, retry every "
                        + retry.toMillis() + " ms"
                : "MongoLockProvider, lockAtMostFor 3s, SimpleLock.extend(3s, 0) every 1s, lockAtLeastFor 0, retry "
                        + "every "
                        + retry.toMillis() + " ms";
    }

    @Override
    public Duration renewal() {
        return keepAlive() ? ShedLockJob.KEEPALIVE_LOCK.dividedBy(2) : ShedLockJob.MANUAL_EXTEND;
    }

    @Override
    public Duration bound() {
        return (keepAlive() ? ShedLockJob.KEEPALIVE_LOCK : ShedLockJob.MANUAL_LOCK)
                .plus(retry)
                .plusSeconds(30);
    }

    @Override
    public void start() {
        admin = database.connect(dbName);
        launch();
        launch();
    }

    private void launch() {
        jobs.add(Children.start(
                dir,
                dbName + "-" + started++,
                List.of("-Xmx128m"),
                ShedLockJob.class.getName(),
                List.of(variant, database.uri(), dbName, LOCK, Long.toString(retry.toMillis()))));
    }

    @Override
    public ChildJvm holder(Duration atMost) {
        ChildJvm[] holder = new ChildJvm[1];
        Waits.until(name() + ": a holder and a waiter", atMost, Duration.ofMillis(50), () -> {
            holder[0] = null;
            for (ChildJvm job : jobs) {
                String output = job.output();
                if (!job.isAlive() || !(output.contains("WAITING") || output.contains("ACQUIRED"))) {
                    return false;
                }
                if (holds(output)) {
                    holder[0] = job;
                }
            }
            return holder[0] != null;
        });
        return holder[0];
    }

    /** Its last word about the lock was that it acquired it. */
    private static boolean holds(String output) {
        boolean holds = false;
        for (String line : output.split("\n")) {
            if (line.startsWith("ACQUIRED ")) {
                holds = true;
            } else if (line.startsWith("LOST ")) {
                holds = false;
            }
        }
        return holds;
    }

    @Override
    public ChildJvm other(ChildJvm holder) {
        return jobs.stream().filter(c -> c != holder).findFirst().orElseThrow();
    }

    @Override
    public long holding() {
        Document lock = admin.database()
                .getCollection("shedLock")
                .find(new Document("_id", LOCK))
                .first();
        if (lock == null || !(lock.get("lockedAt") instanceof Date at)) {
            return -1;
        }
        return at.getTime();
    }

    @Override
    public void replace(ChildJvm dead) {
        dead.close();
        jobs.remove(dead);
        launch();
    }

    @Override
    public CommandCount commands(ChildJvm contender) {
        CommandCount count = CommandCount.lastJobLine(contender.output());
        if (count == null) {
            throw new IllegalStateException(
                    contender.name() + " printed no COMMANDS line (log: " + contender.log() + ")");
        }
        return count;
    }

    @Override
    public void close() {
        jobs.forEach(ChildJvm::close);
        if (admin != null) {
            admin.close();
        }
    }
}
