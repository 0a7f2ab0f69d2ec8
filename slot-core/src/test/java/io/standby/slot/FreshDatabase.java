package io.standby.slot;

import io.standby.testing.TestDatabase;
import java.time.Duration;

/**
 * The database every test of Standby's own types starts from: a fresh one per test on this run's server, reached
 * through a {@link StandbyDatabase}. One definition, so that a change of the connection's settings (its operation
 * timeout) reaches every test at once.
 *
 * <pre>{@code
 * @RegisterExtension
 * final TestDatabase<StandbyDatabase> database = FreshDatabase.perTest();
 * }</pre>
 */
public final class FreshDatabase {

    private FreshDatabase() {}

    /** A fresh database per test, dropped after it (see {@link TestDatabase}). */
    public static TestDatabase<StandbyDatabase> perTest() {
        return TestDatabase.of(
                (uri, name) -> StandbyDatabase.connect(uri, name, Duration.ofSeconds(10), null),
                StandbyDatabase::database);
    }
}
