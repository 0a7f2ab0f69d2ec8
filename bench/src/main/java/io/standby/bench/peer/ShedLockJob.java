package io.standby.bench.peer;

import com.mongodb.ConnectionString;
import com.mongodb.MongoClientSettings;
import com.mongodb.client.MongoClient;
import com.mongodb.client.MongoClients;
import com.mongodb.event.CommandListener;
import com.mongodb.event.CommandStartedEvent;
import java.time.Duration;
import java.time.Instant;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.LongAdder;
import java.util.stream.Collectors;
import net.javacrumbs.shedlock.core.DefaultLockingTaskExecutor;
import net.javacrumbs.shedlock.core.LockConfiguration;
import net.javacrumbs.shedlock.core.LockProvider;
import net.javacrumbs.shedlock.core.SimpleLock;
import net.javacrumbs.shedlock.provider.mongo.MongoLockProvider;
import net.javacrumbs.shedlock.support.KeepAliveLockProvider;

/**
 * The standby-slot job built the way ShedLock's documentation has it, one JVM per contender: every {@code retry} it
 * tries to take the named lock; the one that gets it runs the job (here: holds on) until it dies or loses the lock. Two
 * variants:
 *
 * <ul>
 *   <li>{@code keepalive}: {@link KeepAliveLockProvider} around {@link MongoLockProvider}, run through
 *       {@link DefaultLockingTaskExecutor} ("locking without a framework"), lockAtMostFor 30 s (the least the provider
 *       accepts), so it extends by 30 s every 15 s;
 *   <li>{@code manual}: {@link MongoLockProvider} with lockAtMostFor 3 s, and {@link SimpleLock#extend} every second; a
 *       failed extend ends the job.
 * </ul>
 *
 * It prints {@code ACQUIRED <epoch ms>}, {@code LOST <epoch ms>}, {@code WAITING <epoch ms>} (after its first attempt,
 * so a bench knows it competes) and every second {@code COMMANDS <epoch ms> <total> <command collection=n,...>}, its
 * driver's count of the commands it sent. Usage: {@code ShedLockJob keepalive|manual MONGO_URI DATABASE LOCK_NAME
 * RETRY_MS}.
 */
public final class ShedLockJob {

    /** The least lockAtMostFor that {@link KeepAliveLockProvider}'s public constructor accepts. */
    static final Duration KEEPALIVE_LOCK = Duration.ofSeconds(30);

    static final Duration MANUAL_LOCK = Duration.ofSeconds(3);
    static final Duration MANUAL_EXTEND = Duration.ofSeconds(1);

    private static final Map<String, LongAdder> COMMANDS = new ConcurrentHashMap<>();

    private ShedLockJob() {}

    public static void main(String[] args) throws Exception {
        if (args.length != 5 || !(args[0].equals("keepalive") || args[0].equals("manual"))) {
            System.err.println("usage: ShedLockJob keepalive|manual MONGO_URI DATABASE LOCK_NAME RETRY_MS");
            System.exit(2);
        }
        String variant = args[0];
        String lockName = args[3];
        Duration retry = Duration.ofMillis(Long.parseLong(args[4]));
        MongoClient client = MongoClients.create(MongoClientSettings.builder()
                .applyConnectionString(new ConnectionString(args[1]))
                .addCommandListener(new Counting())
                .build());
        ScheduledExecutorService timers = Executors.newScheduledThreadPool(2);
        timers.scheduleAtFixedRate(ShedLockJob::printCommands, 1, 1, TimeUnit.SECONDS);
        Runtime.getRuntime().addShutdownHook(new Thread(ShedLockJob::printCommands));
        MongoLockProvider mongo = new MongoLockProvider(client.getDatabase(args[2]));
        boolean first = true;
        // A fixed delay between attempts, as @Scheduled(fixedDelay) would: while the job runs, this thread is in it.
        while (true) {
            if (variant.equals("keepalive")) {
                runWithKeepAlive(new KeepAliveLockProvider(mongo, timers), lockName);
            } else {
                runWithManualExtend(mongo, lockName);
            }
            if (first) {
                print("WAITING");
                first = false;
            }
            Thread.sleep(retry);
        }
    }

    /** As the documentation's "locking without a framework": the task runs only if the lock was taken. */
    private static void runWithKeepAlive(LockProvider provider, String lockName) {
        new DefaultLockingTaskExecutor(provider)
                .executeWithLock(
                        (Runnable) ShedLockJob::holdOn,
                        new LockConfiguration(Instant.now(), lockName, KEEPALIVE_LOCK, Duration.ZERO));
    }

    private static void holdOn() {
        print("ACQUIRED");
        try {
            Thread.sleep(Long.MAX_VALUE);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    /** The lock for 3 s, extended by 3 s every second; the first extend that fails ends the job. */
    private static void runWithManualExtend(LockProvider provider, String lockName) throws InterruptedException {
        Optional<SimpleLock> lock =
                provider.lock(new LockConfiguration(Instant.now(), lockName, MANUAL_LOCK, Duration.ZERO));
        if (lock.isEmpty()) {
            return;
        }
        print("ACQUIRED");
        while (lock.isPresent()) {
            Thread.sleep(MANUAL_EXTEND);
            lock = lock.get().extend(MANUAL_LOCK, Duration.ZERO);
        }
        print("LOST");
    }

    private static void printCommands() {
        Map<String, Long> counts = new TreeMap<>();
        COMMANDS.forEach((what, n) -> counts.put(what, n.sum()));
        long total = counts.values().stream().mapToLong(Long::longValue).sum();
        String kinds = counts.entrySet().stream()
                .map(e -> e.getKey() + "=" + e.getValue())
                .collect(Collectors.joining(","));
        print("COMMANDS " + total + " " + kinds);
    }

    private static synchronized void print(String line) {
        String[] parts = line.split(" ", 2);
        System.out.println(parts[0] + " " + System.currentTimeMillis() + (parts.length > 1 ? " " + parts[1] : ""));
        System.out.flush();
    }

    /** Counts each command by name and collection, as Micrometer's listener tags them on a node. */
    private static final class Counting implements CommandListener {
        @Override
        public void commandStarted(CommandStartedEvent event) {
            String name = event.getCommandName();
            var target = event.getCommand().get(name);
            String what = target != null && target.isString()
                    ? name + ":" + target.asString().getValue()
                    : name;
            COMMANDS.computeIfAbsent(what, k -> new LongAdder()).increment();
        }
    }
}
